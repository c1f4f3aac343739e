/**
 * `codex-mmo session list [--json]`: every session under the state directory with its status;
 * a session recorded as running whose supervising process is gone shows as ended.
 */
import { formatTable } from '../../foundation/text/index.js';
import {
  effectiveRecord,
  listSessionRecords,
  type SessionRecord,
} from '../../runtime/session/index.js';
import { isAlive, livenessFor } from '../../foundation/process/index.js';
import { parseCommand, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';
import { clearAbandonedSessions } from '../../features/session/upkeep/index.js';

const USAGE = `Usage: codex-mmo session list [--json]

List the sessions in <state-dir>/sessions, oldest first: id, status, profile, mode, start time and
processes (session root plus participants). A session whose supervising codex-mmo process is gone
(killed, machine restarted) is shown as ended; its watchdog stops the session's Codex processes,
and 'session show' says what happened.`;

export function summaryOf(record: SessionRecord): Record<string, unknown> {
  return {
    id: record.id,
    status: record.status,
    profile: record.profile,
    snapshot: record.snapshot,
    mode: record.mode,
    started: record.started,
    ...(record.ended !== undefined ? { ended: record.ended } : {}),
    ...(record.exit_code !== undefined ? { exit_code: record.exit_code } : {}),
    pid: record.pid,
    processes: record.processes.length,
  };
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 0, max: 0 });
  // what sessions killed with their watchdog left behind goes first
  await clearAbandonedSessions(cmd.dirs.stateDir);
  if (cmd.help) return printHelp(io, USAGE);
  const records = (await listSessionRecords(cmd.dirs.stateDir)).map((r) =>
    effectiveRecord(r, livenessFor(r.pid, r.pid_start, isAlive)),
  );
  if (cmd.json) {
    printJson(io, { sessions: records.map(summaryOf) });
    return EXIT_OK;
  }
  if (records.length === 0) {
    io.stdout(`No sessions in ${cmd.dirs.stateDir}/sessions.\n`);
    return EXIT_OK;
  }
  io.stdout(
    formatTable(
      ['ID', 'STATUS', 'PROFILE', 'MODE', 'STARTED', 'PROCESSES'],
      records.map((r) => [
        r.id,
        r.exit_code !== undefined && r.status !== 'running'
          ? `${r.status} (${r.exit_code})`
          : r.status,
        r.profile,
        r.mode,
        r.started,
        String(r.processes.length),
      ]),
    ),
  );
  return EXIT_OK;
}
