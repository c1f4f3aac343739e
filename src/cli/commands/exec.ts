/**
 * `codex-mmo exec PROFILE PROMPT [--cwd DIR] [--max-participants N] [-- CODEX_ARGS]`: runs `codex exec` as the profile's
 * root role in a new session, and (shared with `run`) the launch itself: refuse before Codex
 * runs when a required variable is missing, forward signals, pass Codex's exit code through.
 */
import { isAbsolute, resolve } from 'node:path';

import { defaultCliLaunch } from '../../mesh/mesh-command.js';
import { launchSession } from '../../session/launch.js';
import type { SessionMode } from '../../session/prepare-session.js';
import { startSession } from '../../session/start-session.js';
import { UsageError, parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo exec PROFILE PROMPT [--cwd DIR] [--max-participants N] [-- CODEX_ARGS...]

Run \`codex exec\` non-interactively as the root role of PROFILE (an installed pack name or a pack
directory) in a new session: the profile is compiled (or its snapshot reused), the session gets
<state-dir>/sessions/<id>/ with a private Codex home, and Codex receives a built environment with
only the variables its servers reference. A missing variable of a required grant stops the launch
before Codex runs. Arguments after -- go to Codex. Codex's exit code is passed through.
--skip-git-repo-check is passed to Codex: the profile's sandbox governs what Codex may change.

Options:
  --cwd DIR            working directory of Codex (default: the current directory)
  --max-participants N most participants the session runs at once (default 8)

With --json, launch errors are printed as JSON on stdout and a JSON summary of the ended session
is printed on stderr (stdout belongs to Codex).`;

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Shared body of `run` and `exec`. */
export async function runSessionCommand(
  mode: SessionMode,
  args: readonly string[],
  io: CliIo,
  usage: string,
): Promise<number> {
  const separator = args.indexOf('--');
  const own = separator < 0 ? args : args.slice(0, separator);
  const codexArgs = separator < 0 ? [] : args.slice(separator + 1);
  const count = mode === 'exec' ? 2 : 1;
  const cmd = parseCommand(
    own,
    io,
    { cwd: { type: 'string' }, 'max-participants': { type: 'string' } },
    { min: count, max: count },
  );
  if (cmd.help) return printHelp(io, usage);
  const [profile = '', prompt] = cmd.positionals;
  const cwdOption = cmd.values.cwd;
  const sessionCwd =
    typeof cwdOption === 'string'
      ? isAbsolute(cwdOption)
        ? cwdOption
        : resolve(io.cwd, cwdOption)
      : io.cwd;
  const maxOption = cmd.values['max-participants'];
  let maxParticipants: number | undefined;
  if (typeof maxOption === 'string') {
    maxParticipants = /^\d+$/.test(maxOption) ? Number(maxOption) : Number.NaN;
    if (!Number.isSafeInteger(maxParticipants)) {
      throw new UsageError(
        `option '--max-participants' needs a whole number of participants (0 or more), not '${maxOption}'`,
      );
    }
  }

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
  });
  if (!started.ok) {
    if (cmd.json) printJson(io, { ok: false, diagnostics: started.diagnostics });
    else {
      printDiagnostics(io, started.diagnostics);
      io.stderr(`codex-mmo: ${mode} ${profile}: not started\n`);
    }
    return EXIT_FAILURE;
  }
  if (!cmd.json) printDiagnostics(io, started.diagnostics);
  const plan = started.plan;
  if (!cmd.json) {
    io.stderr(
      `codex-mmo: session ${plan.id} (profile ${plan.record.profile}, snapshot ${plan.record.snapshot.slice(0, 19)})\n`,
    );
  }
  const running = await launchSession(plan, {
    ...started.context,
    ...(maxParticipants !== undefined ? { maxParticipants } : {}),
    stdio: mode === 'run' ? 'inherit' : 'pipe-stderr',
    onStderr: (chunk) => {
      io.stderr(chunk);
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
    if (cmd.json) {
      io.stderr(
        `${JSON.stringify({
          session: plan.id,
          dir: plan.dir,
          status: outcome.status,
          exit_code: outcome.exitCode,
          ...(outcome.record.error !== undefined ? { error: outcome.record.error } : {}),
        })}\n`,
      );
    } else if (outcome.status === 'stopped') {
      io.stderr(`codex-mmo: session ${plan.id} was stopped\n`);
    } else if (outcome.status === 'failed') {
      io.stderr(
        `codex-mmo: session ${plan.id} failed: ${outcome.record.error ?? `exit code ${outcome.exitCode}`}\n`,
      );
    }
    return outcome.exitCode;
  } finally {
    for (const { signal, handler } of handlers) process.off(signal, handler);
  }
}

export function run(args: readonly string[], io: CliIo): Promise<number> {
  return runSessionCommand('exec', args, io, USAGE);
}
