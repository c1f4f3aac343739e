/**
 * `codex-mmo session logs ID [--process P] [--follow] [--json]`: a session's events in order —
 * processes started and ended, turns, messages, tool calls with server and tool, commands,
 * approvals asked and answered — for the root and every participant; `--follow` keeps printing
 * new events until the session has ended.
 */
import {
  configFiles,
  formatEvent,
  loadCredentials,
  locateSession,
  readEvents,
  readSessionRecord,
  readSnapshot,
  type SessionEvent,
  type SessionRecord,
} from '../../index.js';
import { maskDeep } from '../../foundation/diagnostics/index.js';
import { rootRolloutEvents } from '../../runtime/events/index.js';
import { isAlive } from '../../foundation/process/index.js';
import { effectiveRecord, isActiveStatus } from '../../runtime/session/index.js';
import { UsageError, parseCommand, printHelp } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo session logs ID [--process P] [--follow] [--json]

Print a session's events in order: process started/ended, turn started/completed, messages, MCP
tool calls (server and tool), commands, approvals requested and answered — for the session root
and every participant. Driven processes (the exec root, participants) are logged from their
app-server notifications; the root of an interactive 'run' from its Codex rollout. Nothing logged
holds a credential value. ID may be a unique prefix of a session id.

Options:
  --process P    only the events of process P ('root' or a participant id such as worker-1)
                 or of role P (a process root's or a native role's)
  --follow       keep printing new events until the session has ended

--json prints one JSON object per line.`;

const FOLLOW_POLL_MS = 200;

/** Process ids and role names a session knows: its record's, its profile's and its events'. */
function knownProcesses(
  record: SessionRecord,
  roles: readonly string[],
  events: readonly SessionEvent[],
): string[] {
  const names = new Set<string>();
  for (const p of record.processes) {
    names.add(p.id);
    names.add(p.role);
  }
  for (const e of events) {
    names.add(e.process);
    names.add(e.role);
  }
  for (const role of roles) names.add(role);
  return [...names].sort();
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(
    args,
    io,
    { process: { type: 'string' }, follow: { type: 'boolean' } },
    { min: 1, max: 1, names: ['ID'] },
  );
  if (cmd.help) return printHelp(io, USAGE);
  const dir = await locateSession(cmd.dirs.stateDir, cmd.positionals[0] ?? '');
  const only = typeof cmd.values.process === 'string' ? cmd.values.process : undefined;
  const print = (event: SessionEvent): void => {
    if (only !== undefined && event.process !== only && event.role !== only) return;
    io.stdout(cmd.json ? `${JSON.stringify(event)}\n` : `${formatEvent(event)}\n`);
  };
  const record = await readSessionRecord(dir);
  let collect: () => Promise<SessionEvent[]> = () => readEvents(dir);
  if (record.mode === 'run') {
    // the interactive root is not driven by codex-mmo: its events come from Codex's rollout,
    // masked with the operator's credential values before they are shown
    const credentials = await loadCredentials(configFiles(cmd.dirs.configDir).credentials, io.env);
    const secrets = credentials.source.secretValues();
    collect = async () => {
      const rollout = (await rootRolloutEvents(record)).map((e) => maskDeep(e, secrets));
      return [...(await readEvents(dir)), ...rollout].sort((a, b) => a.time.localeCompare(b.time));
    };
  }
  if (only !== undefined) {
    const roles = await readSnapshot(cmd.dirs.dataDir, record.snapshot).then(
      (stored) => Object.keys(stored.snapshot.profile.agents),
      () => [],
    );
    const known = knownProcesses(record, roles, await collect().catch(() => []));
    if (!known.includes(only)) {
      throw new UsageError(
        `session ${record.id} has no process or role '${only}'; known: ${known.join(', ')}`,
      );
    }
  }
  if (cmd.values.follow !== true) {
    for (const event of await collect()) print(event);
    return EXIT_OK;
  }
  const printed = new Set<string>();
  for (;;) {
    const current = effectiveRecord(await readSessionRecord(dir), isAlive);
    const ended = !isActiveStatus(current.status);
    for (const event of await collect()) {
      const key = JSON.stringify(event);
      if (printed.has(key)) continue;
      printed.add(key);
      print(event);
    }
    if (ended) break;
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
  }
  return EXIT_OK;
}
