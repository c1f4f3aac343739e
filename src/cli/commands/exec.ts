/**
 * `codex-mmo exec PROFILE PROMPT [OPTIONS] [-- CODEX_ARGS]`: runs the profile's root role under
 * `codex app-server` in a new session, and (shared with `run`) the launch itself: refuse before
 * Codex runs when a required variable is missing, forward signals, report how the session ended.
 * Everything printed for a person is terminal-safe: progress lines one line each, the final
 * message and Codex's stderr with their line breaks but no terminal sequence.
 */
import { isAbsolute, resolve } from 'node:path';

import {
  formatDiagnostic,
  formatEvent,
  type Diagnostic,
  maskSecrets,
  type SessionEvent,
  startSession,
} from '../../index.js';
import { terminalSafe } from '../../foundation/text/index.js';
import { DEFAULT_APPROVAL_TIMEOUT_SEC } from '../../runtime/protocol/index.js';
import { resolveTeamBudget, type TeamBudget } from '../../runtime/session/index.js';
import { defaultCliLaunch, resolveMaxParticipants } from '../../runtime/mesh/index.js';
import {
  parseExecCodexArgs,
  launchSession,
  type SessionMode,
  checkInterpreter,
  checkSessionCwd,
  findResumeSource,
  type ResumeSource,
  type SessionOutcome,
} from '../../features/session/index.js';
import { clearAbandonedSessions } from '../../features/session/upkeep/index.js';
import {
  UsageError,
  parseCommand,
  printDiagnostics,
  printFailure,
  printHelp,
  printJson,
} from '../common.js';
import { EXIT_FAILURE, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo exec PROFILE PROMPT [--cwd DIR] [--approval-timeout SEC] [--max-participants N] [--max-codex-processes N] [--max-server-processes N] [--max-memory MB] [--accept-host-risk] [-- CODEX_ARGS...]
       codex-mmo exec --resume ID PROMPT [OPTIONS] [-- CODEX_ARGS...]

Run Codex non-interactively as the root role of PROFILE (an installed pack name or a pack
directory) in a new session: the profile is compiled (or its snapshot reused), the session gets
<state-dir>/sessions/<id>/ with a private Codex home, and Codex receives a built environment with
only the variables its servers reference. A missing variable of a required grant stops the launch
before Codex runs. PROMPT '-' reads the prompt from stdin (stdin is never read otherwise).

The root runs under \`codex app-server\`, like every participant: its approval requests (MCP tools
whose mode asks, commands, file changes) wait in the session's approval queue for a person —
\`codex-mmo session approvals\`, \`session approve ID REQUEST\`, \`session deny ID REQUEST\` from any
terminal of the same user — and are denied after --approval-timeout. Progress goes to stderr, the
final message to stdout. Exit code 0 when the turn completed, 1 when it failed, was stopped, or a
required MCP server failed. After -- Codex takes -c/--config key=value and -m/--model NAME.

Options:
  --resume ID               continue session ID from its own snapshot instead of starting PROFILE
                            (see 'codex-mmo session resume --help')
  --cwd DIR                 working directory of Codex (default: the current directory, or the
                            resumed session's)
  --approval-timeout SEC    deny an unanswered approval request after SEC seconds (default 900)
  --max-participants N      most participants the session runs at once (default 8)
  --max-codex-processes N   most Codex processes (root and participants) at once (default: no limit)
  --max-server-processes N  most Tool MCP server processes at once (default: no limit)
  --max-memory MB           most resident memory of the session's processes together; a spawn
                            or server start that would pass it is refused (default: no limit)
  --accept-host-risk        start even where the host view cannot be built and a role's shell
                            has network (it could reach the operator's daemons)

With --json, stdout carries one JSON event per line (the session's events: turns, messages, tool
calls, approvals), launch errors are printed as JSON on stdout, launch warnings as one JSON
diagnostic per line on stderr, and a JSON summary of the ended session is printed on stderr.`;

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The options of `run`, `exec` and `session resume`. */
export const SESSION_OPTIONS = {
  resume: { type: 'string' },
  cwd: { type: 'string' },
  'approval-timeout': { type: 'string' },
  'max-participants': { type: 'string' },
  'max-codex-processes': { type: 'string' },
  'max-server-processes': { type: 'string' },
  'max-memory': { type: 'string' },
  'accept-host-risk': { type: 'boolean' },
} as const;

/**
 * The progress text of one session event on stderr: its line, and for an approval request the
 * line that says how to answer it; nothing for a failed server (told once, as its diagnostic).
 * Every line is terminal-safe.
 */
export function progressText(
  event: SessionEvent,
  session: string,
  approvalTimeoutSec: number,
): string {
  if (event.type === 'server.failed') return '';
  let text = `${formatEvent(event)}\n`;
  if (event.type === 'approval.requested' && event.approval !== undefined) {
    const request = `${session} ${event.approval}`;
    text += `${terminalSafe(
      `codex-mmo: answer with 'codex-mmo session approve ${request}' or 'codex-mmo session deny ${request}' (denied after ${approvalTimeoutSec} s)`,
    )}\n`;
  }
  return text;
}

/** Shared body of `run` and `exec`. */
/** The team budget's ceilings besides participants, from `run`/`exec`'s options. */
function budgetOptions(
  values: Readonly<Record<string, unknown>>,
  participants: number,
): Omit<TeamBudget, 'participants'> {
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const team = resolveTeamBudget(participants, {
    codex_processes: text('max-codex-processes'),
    server_processes: text('max-server-processes'),
    memory_mb: text('max-memory'),
  });
  if (!team.ok) throw new UsageError(team.message);
  const { codex_processes, server_processes, memory_mb } = team.value;
  return {
    ...(codex_processes !== undefined ? { codex_processes } : {}),
    ...(server_processes !== undefined ? { server_processes } : {}),
    ...(memory_mb !== undefined ? { memory_mb } : {}),
  };
}

export async function runSessionCommand(
  mode: SessionMode,
  args: readonly string[],
  io: CliIo,
  usage: string,
): Promise<number> {
  const separator = args.indexOf('--');
  const own = separator < 0 ? args : args.slice(0, separator);
  const codexArgs = separator < 0 ? [] : args.slice(separator + 1);
  // resuming, the profile is the earlier session's: only the prompt is given (optional for run)
  const resuming = own.some((a) => a === '--resume' || a.startsWith('--resume='));
  const count = mode === 'exec' ? 2 : 1;
  const cmd = parseCommand(
    own,
    io,
    SESSION_OPTIONS,
    resuming
      ? { min: count - 1, max: 2, names: ['PROMPT'] }
      : { min: count, max: count, names: mode === 'exec' ? ['PROFILE', 'PROMPT'] : ['PROFILE'] },
  );
  if (cmd.help) return printHelp(io, usage);
  if (resuming && cmd.positionals.length > 1) {
    throw new UsageError(
      `--resume continues a session with its own profile: give only the prompt, as in 'codex-mmo ${mode} --resume ID${mode === 'exec' ? ' PROMPT' : ' [PROMPT]'}'`,
    );
  }
  const resumeId = typeof cmd.values.resume === 'string' ? cmd.values.resume : undefined;
  const [profileArg = '', promptArg] =
    resumeId !== undefined ? ['', cmd.positionals[0]] : cmd.positionals;
  const timeoutText = cmd.values['approval-timeout'];
  const approvalTimeoutSec =
    typeof timeoutText === 'string' ? Number(timeoutText) : DEFAULT_APPROVAL_TIMEOUT_SEC;
  if (!Number.isFinite(approvalTimeoutSec) || approvalTimeoutSec <= 0) {
    throw new UsageError(
      `option '--approval-timeout' takes a positive number of seconds, not '${String(timeoutText)}'`,
    );
  }
  const execArgs = mode === 'exec' ? parseExecCodexArgs(codexArgs) : undefined;
  if (execArgs !== undefined && !execArgs.ok) throw new UsageError(execArgs.message);
  // what sessions killed with their watchdog left behind goes, while this one is prepared (and
  // before an earlier session is looked at: it may be one of them)
  const clearing = clearAbandonedSessions(cmd.dirs.stateDir);
  let resume: ResumeSource | undefined;
  if (resumeId !== undefined) {
    await clearing;
    const found = await findResumeSource(cmd.dirs.stateDir, cmd.dirs.dataDir, resumeId);
    if (!found.ok) return notResumed(io, cmd.json, resumeId, found.diagnostics);
    resume = found.source;
  }
  const profile = resume?.record.profile ?? profileArg;
  const cwdOption = cmd.values.cwd;
  // a resumed session works where the earlier one did, unless told otherwise
  const sessionCwd =
    typeof cwdOption === 'string'
      ? isAbsolute(cwdOption)
        ? cwdOption
        : resolve(io.cwd, cwdOption)
      : (resume?.record.cwd ?? io.cwd);
  const maxOption = cmd.values['max-participants'];
  const cap = resolveMaxParticipants(typeof maxOption === 'string' ? maxOption : undefined);
  if (!cap.ok) throw new UsageError(cap.message);
  const maxParticipants = cap.value;
  const budget = budgetOptions(cmd.values, maxParticipants);
  // checked before anything of the session is written: a missing directory is our error, not Codex's
  const badCwd = await checkSessionCwd(sessionCwd);
  if (badCwd !== undefined) return printFailure(io, cmd.json, [badCwd]);

  // the prompt comes from stdin only when it is '-'
  const prompt = promptArg === '-' ? await readStdin() : promptArg;

  const started = await startSession({
    mode,
    profile,
    ...(prompt !== undefined ? { prompt } : {}),
    codexArgs,
    dirs: cmd.dirs,
    env: io.env,
    home: io.home,
    cwd: io.cwd,
    sessionCwd,
    cli: defaultCliLaunch(),
    pid: process.pid,
    acceptHostRisk: cmd.values['accept-host-risk'] === true,
    ...(resume !== undefined ? { resume } : {}),
  });
  await clearing;
  if (!started.ok) {
    if (cmd.json) printJson(io, { ok: false, diagnostics: started.diagnostics });
    else {
      printDiagnostics(io, started.diagnostics);
      io.stderr(
        resume !== undefined
          ? `codex-mmo: session ${resume.from}: not resumed\n`
          : `codex-mmo: ${mode} ${profile}: not started\n`,
      );
    }
    return EXIT_FAILURE;
  }
  // warnings of the launch: as text, or (stdout being the event stream) one JSON line each on stderr
  if (!cmd.json) printDiagnostics(io, started.diagnostics);
  else for (const found of started.diagnostics) io.stderr(`${JSON.stringify(found)}\n`);
  const plan = started.plan;
  const badInterpreter = await checkInterpreter(plan.command);
  if (badInterpreter !== undefined) return printFailure(io, cmd.json, [badInterpreter]);
  if (!cmd.json) {
    const continues = resume !== undefined ? `, continuing session ${resume.from}` : '';
    io.stderr(
      `codex-mmo: session ${plan.id} (profile ${plan.record.profile}, snapshot ${plan.record.snapshot.slice(0, 19)}${continues})\n`,
    );
  }
  const secrets = plan.secrets;
  const onEvent = (event: SessionEvent): void => {
    if (cmd.json) {
      io.stdout(`${JSON.stringify(event)}\n`);
      return;
    }
    const text = progressText(event, plan.id, approvalTimeoutSec);
    if (text !== '') io.stderr(text);
  };
  const running = await launchSession(plan, {
    ...started.context,
    maxParticipants,
    budget,
    stdio: mode === 'run' ? 'inherit' : 'pipe-stderr',
    approvalTimeoutSec,
    ...(mode === 'exec' ? { onEvent } : {}),
    ...(execArgs?.ok === true ? { execOverrides: execArgs.overrides } : {}),
    onStderr: (chunk) => {
      io.stderr(terminalSafe(chunk, { keepLayout: true }));
    },
    onDiagnostic: (found) => {
      if (cmd.json) io.stderr(`${JSON.stringify(found)}\n`);
      else io.stderr(`${formatDiagnostic(found)}\n`);
    },
  });
  const handlers = SIGNALS.map((signal) => {
    const handler = (): void => {
      running.signal(signal);
    };
    process.on(signal, handler);
    return { signal, handler };
  });
  try {
    const outcome = await running.done;
    await reportOutcome(io, cmd, { id: plan.id, dir: plan.dir, mode, secrets, resume }, outcome);
    return outcome.exitCode;
  } finally {
    for (const { signal, handler } of handlers) process.off(signal, handler);
  }
}

/** How the session ended: the final message on stdout, its end (or JSON summary) on stderr. */
async function reportOutcome(
  io: CliIo,
  cmd: { readonly json: boolean; readonly dirs: { stateDir: string; dataDir: string } },
  session: {
    readonly id: string;
    readonly dir: string;
    readonly mode: SessionMode;
    readonly secrets: readonly string[];
    readonly resume: ResumeSource | undefined;
  },
  outcome: SessionOutcome,
): Promise<void> {
  const { id } = session;
  const json = cmd.json;
  if (!json && outcome.finalMessage !== undefined) {
    const answer = maskSecrets(outcome.finalMessage, session.secrets);
    io.stdout(`${terminalSafe(answer, { keepLayout: true })}\n`);
  }
  if (json) {
    io.stderr(
      `${JSON.stringify({
        session: id,
        dir: session.dir,
        status: outcome.status,
        exit_code: outcome.exitCode,
        ...(session.resume !== undefined ? { resumed_from: session.resume.from } : {}),
        ...(outcome.record.error !== undefined ? { error: outcome.record.error } : {}),
      })}\n`,
    );
  } else if (outcome.status === 'stopped') {
    io.stderr(`codex-mmo: session ${id} was stopped\n`);
  } else if (outcome.status === 'failed') {
    io.stderr(
      `${terminalSafe(`codex-mmo: session ${id} failed: ${outcome.record.error ?? `exit code ${outcome.exitCode}`}`)}\n`,
    );
    // Codex's own words ("stdin is not a terminal") do not say what to run instead
    if (session.mode === 'run' && io.stdinIsTty === false) {
      io.stderr(
        "codex-mmo: `run` opens Codex's interactive TUI, which needs a terminal; without one, run `codex-mmo exec PROFILE PROMPT`\n",
      );
    }
  }
  // Codex's TUI ends with a `codex resume` hint for a home that went with the session
  // `run` names the way on only when there is one: a root that kept a Codex thread
  if (json || session.mode !== 'run') return;
  if ((await findResumeSource(cmd.dirs.stateDir, cmd.dirs.dataDir, id)).ok) {
    io.stderr(resumeNote(id));
  }
}

/** Why session `id` cannot be resumed: its diagnostics (as JSON with --json). */
function notResumed(
  io: CliIo,
  json: boolean,
  id: string,
  diagnostics: readonly Diagnostic[],
): number {
  if (json) printJson(io, { ok: false, diagnostics });
  else {
    printDiagnostics(io, diagnostics);
    io.stderr(`codex-mmo: session ${id}: not resumed\n`);
  }
  return EXIT_FAILURE;
}

/**
 * How to continue the session; after `run`, below Codex's own `codex resume` hint, which does not
 * apply. The command has a line of its own, so a terminal does not break it inside the ID.
 */
function resumeNote(id: string): string {
  return (
    `codex-mmo: session ${id} is over (the \`codex resume\` line above does not apply: its Codex home went with the session)\n` +
    `codex-mmo: continue it with 'codex-mmo session resume ${id}'\n`
  );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function run(args: readonly string[], io: CliIo): Promise<number> {
  return runSessionCommand('exec', args, io, USAGE);
}
