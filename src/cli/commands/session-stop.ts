/**
 * `codex-mmo session stop ID [--json]`: ends a running session — Codex and every participant —
 * and records it as stopped. A session that has already ended is reported as such.
 */
import { locateSession } from '../../runtime/session/index.js';
import { parseCommand, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';
import { clearAbandonedSessions, stopSession } from '../../features/session/upkeep/index.js';

const USAGE = `Usage: codex-mmo session stop ID [--json]

Stop a running session: its supervising codex-mmo process forwards SIGTERM to Codex, stops every
participant (with their MCP servers) and records the session as stopped. Processes still running
after 15 seconds are killed. ID may be a unique prefix of a session id.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1 });
  // what sessions killed with their watchdog left behind goes first
  await clearAbandonedSessions(cmd.dirs.stateDir);
  if (cmd.help) return printHelp(io, USAGE);
  const dir = await locateSession(cmd.dirs.stateDir, cmd.positionals[0] ?? '');
  const result = await stopSession(dir);
  if (cmd.json) {
    printJson(io, {
      session: result.record.id,
      status: result.record.status,
      stopped: result.stopped,
      forced: result.forced,
    });
    return EXIT_OK;
  }
  io.stdout(
    result.stopped
      ? `Stopped session ${result.record.id}${result.forced ? ' (processes killed)' : ''}.\n`
      : `Session ${result.record.id} has already ${result.record.status === 'failed' ? 'failed' : result.record.status === 'stopped' ? 'been stopped' : 'ended'}.\n`,
  );
  return EXIT_OK;
}
