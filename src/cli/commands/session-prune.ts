/**
 * `codex-mmo session prune [--older-than DAYS] [--json]`: removes the directories of ended
 * sessions (their private Codex homes, logs and records). A running session, or one with a
 * process still alive, is never removed.
 */
import { isAlive } from '../../foundation/process/index.js';
import { pruneSessions, clearAbandonedSessions } from '../../features/session/upkeep/index.js';
import { UsageError, parseCommand, printCaughtError, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo session prune [--older-than DAYS] [--json]

Remove ended sessions from <state-dir>/sessions: each one's record, private Codex homes (with the
rollouts and shell snapshots Codex wrote there) and logs. With --older-than, only sessions that
ended more than DAYS days ago (a decimal number). Sessions that are running, whose supervising
codex-mmo process is alive, or that still have a live Codex process are kept.

JSON: {"removed": [{"id", "status", "profile", "started", "ended"?}], "kept": [{"id", "reason"}]}
with reason "running", "process-alive" or "too-recent".`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, { 'older-than': { type: 'string' } }, { min: 0, max: 0 });
  // what sessions killed with their watchdog left behind goes first
  await clearAbandonedSessions(cmd.dirs.stateDir);
  if (cmd.help) return printHelp(io, USAGE);
  const days = cmd.values['older-than'];
  let olderThanDays: number | undefined;
  if (typeof days === 'string') {
    olderThanDays = Number(days);
    if (!/^\d+(\.\d+)?$/.test(days) || !Number.isFinite(olderThanDays)) {
      throw new UsageError(`--older-than takes a number of days, not '${days}'`);
    }
  }
  let result;
  try {
    result = await pruneSessions({
      stateDir: cmd.dirs.stateDir,
      ...(olderThanDays !== undefined ? { olderThanDays } : {}),
      now: new Date(),
      isAlive,
    });
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
  if (cmd.json) {
    printJson(io, result);
    return EXIT_OK;
  }
  for (const s of result.removed) io.stdout(`removed ${s.id} (${s.status}, ${s.profile})\n`);
  const running = result.kept.filter((k) => k.reason !== 'too-recent').length;
  const recent = result.kept.length - running;
  const parts = [
    `${result.removed.length} session${result.removed.length === 1 ? '' : 's'} removed`,
  ];
  if (running > 0) parts.push(`${running} running kept`);
  if (recent > 0) parts.push(`${recent} newer than ${String(olderThanDays)} days kept`);
  io.stdout(`${parts.join(', ')}\n`);
  return EXIT_OK;
}
