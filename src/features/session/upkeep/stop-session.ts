/**
 * `session stop`: asks a session's supervising process to end it (a `stop-requested` marker, then
 * SIGTERM, which it forwards to Codex before stopping every participant and recording `stopped`).
 * If the supervisor does not finish within the grace period, its processes are killed by process
 * group and the record is written here.
 */
import { isAlive } from '../../../foundation/process/process-control.js';
import { endMarkedProcesses, livenessFor } from '../../../foundation/process/session-marker.js';
import { removeSessionLeftovers } from './session-leftovers.js';
import {
  effectiveRecord,
  isActiveStatus,
  type SessionRecord,
} from '../../../runtime/session/session-record.js';
import {
  markStopRequested,
  readSessionRecord,
  writeSessionRecord,
} from '../../../runtime/session/session-store.js';

export interface StopResult {
  readonly record: SessionRecord;
  /** False when the session had already ended before the request. */
  readonly stopped: boolean;
  /** True when its processes had to be killed because the supervisor did not finish in time. */
  readonly forced: boolean;
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Ends every process that carries the session's marker (never a bare recorded pid, which may
 * have been reused), clears the process homes (the `auth.json` copies included), removes the
 * socket and records the session as stopped.
 */
async function forceStop(dir: string): Promise<StopResult> {
  const latest = await readSessionRecord(dir);
  await endMarkedProcesses(latest.id, 1000);
  await removeSessionLeftovers(dir, latest);
  const ended = new Date().toISOString();
  const record: SessionRecord = {
    ...latest,
    status: 'stopped',
    ended,
    processes: latest.processes.map((p) =>
      isActiveStatus(p.status) ? { ...p, status: 'stopped', ended } : p,
    ),
  };
  await writeSessionRecord(dir, record);
  return { record, stopped: true, forced: true };
}

export async function stopSession(dir: string, graceMs = 15_000): Promise<StopResult> {
  const stored = await readSessionRecord(dir);
  const alive = livenessFor(stored.pid, stored.pid_start, isAlive);
  const current = effectiveRecord(stored, alive);
  if (!isActiveStatus(current.status)) {
    // a supervisor killed outright: make sure nothing of its session is left
    if (isActiveStatus(stored.status)) {
      await endMarkedProcesses(stored.id, 1000);
      await removeSessionLeftovers(dir, stored);
    }
    return { record: current, stopped: false, forced: false };
  }
  await markStopRequested(dir);
  const supervisorAlive = (): boolean => alive(current.pid);
  try {
    if (supervisorAlive()) process.kill(current.pid, 'SIGTERM');
  } catch {
    // the supervisor is already gone
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && supervisorAlive()) await sleep(50);
  if (!supervisorAlive()) {
    const record = effectiveRecord(await readSessionRecord(dir), alive);
    return { record, stopped: true, forced: false };
  }
  // the supervisor did not finish: end everything of the session, then record the stop ourselves
  try {
    if (supervisorAlive()) process.kill(current.pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
  return forceStop(dir);
}
