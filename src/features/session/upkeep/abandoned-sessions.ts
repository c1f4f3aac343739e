/**
 * Clearing up after sessions whose supervisor and watchdog were both killed: any later `session`
 * command and every `run`/`exec` start looks for records still marked active whose supervisor is
 * gone (pid and start time, never a bare pid), ends the processes still carrying the session's
 * marker, removes its sockets, token files and `auth.json` copies (the record stays as it is: it
 * shows as failed). Cheap when there is nothing to do: one read of each record.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { endMarkedProcesses, livenessFor } from '../../../foundation/process/session-marker.js';
import { isAlive } from '../../../foundation/process/process-control.js';
import { removeSessionLeftovers, sessionSockets } from './session-leftovers.js';
import { isActiveStatus, type SessionRecord } from '../../../runtime/session/session-record.js';
import {
  listSessionRecords,
  readSessionRecord,
  sessionDir,
} from '../../../runtime/session/session-store.js';

/** Whether a socket of the session or an `auth.json` copy in its homes is still there. */
async function hasLeftovers(dir: string, record: SessionRecord): Promise<boolean> {
  const homes = await readdir(join(dir, 'homes')).catch(() => [] as string[]);
  return [...sessionSockets(record), ...homes.map((h) => join(dir, 'homes', h, 'auth.json'))].some(
    (path) => existsSync(path),
  );
}

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
    // nothing left on disk: cleared before (the record keeps what it says; it shows as failed)
    if (!(await hasLeftovers(dir, record))) continue;
    await endMarkedProcesses(record.id, 1000);
    await removeSessionLeftovers(dir, record);
    cleared.push(record.id);
  }
  return cleared;
}
