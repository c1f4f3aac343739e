/**
 * Clearing up after sessions whose supervisor and watchdog were both killed: any later `session`
 * command and every `run`/`exec` start looks for records still marked active whose supervisor is
 * gone (pid and start time, never a bare pid), ends the processes still carrying the session's
 * marker, removes its sockets, token files and `auth.json` copies, and records it as failed.
 * Cheap when there is nothing to do: one read of each record.
 */
import { endMarkedProcesses, livenessFor } from '../process/session-marker.js';
import { isAlive } from '../process/process-control.js';
import { removeSessionLeftovers } from './session-leftovers.js';
import { effectiveRecord, isActiveStatus } from './session-record.js';
import {
  listSessionRecords,
  readSessionRecord,
  sessionDir,
  writeSessionRecord,
} from './session-store.js';

/** Clears every abandoned session under `stateDir`; resolves with their ids. */
export async function clearAbandonedSessions(stateDir: string): Promise<string[]> {
  const cleared: string[] = [];
  for (const listed of await listSessionRecords(stateDir).catch(() => [])) {
    if (!isActiveStatus(listed.status)) continue;
    const alive = livenessFor(listed.pid, listed.pid_start, isAlive);
    if (alive(listed.pid)) continue;
    const dir = sessionDir(stateDir, listed.id);
    // read again: the supervisor may have recorded the end meanwhile
    const record = await readSessionRecord(dir).catch(() => undefined);
    if (record === undefined || !isActiveStatus(record.status) || alive(record.pid)) continue;
    await endMarkedProcesses(record.id, 1000);
    await removeSessionLeftovers(dir, record);
    const ended = effectiveRecord(record, () => false);
    await writeSessionRecord(dir, { ...ended, ended: ended.ended ?? new Date().toISOString() });
    cleared.push(record.id);
  }
  return cleared;
}
