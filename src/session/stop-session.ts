/**
 * `session stop`: asks a session's supervising process to end it (a `stop-requested` marker, then
 * SIGTERM, which it forwards to Codex before stopping every participant and recording `stopped`).
 * If the supervisor does not finish within the grace period, its processes are killed by process
 * group and the record is written here.
 */
import { isAlive, signalGroup } from '../process/process-control.js';
import { effectiveRecord, isActiveStatus, type SessionRecord } from './session-record.js';
import { markStopRequested, readSessionRecord, writeSessionRecord } from './session-store.js';

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

/** Kills every recorded process of the session that is still alive and records it as stopped. */
async function forceStop(dir: string): Promise<StopResult> {
  const latest = await readSessionRecord(dir);
  for (const p of latest.processes) {
    if (p.pid !== undefined && isAlive(p.pid)) {
      if (p.kind === 'participant') signalGroup(p.pid, 'SIGKILL');
      else {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
  }
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
  const current = effectiveRecord(await readSessionRecord(dir), isAlive);
  if (!isActiveStatus(current.status)) return { record: current, stopped: false, forced: false };
  await markStopRequested(dir);
  try {
    process.kill(current.pid, 'SIGTERM');
  } catch {
    // the supervisor is already gone
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isAlive(current.pid)) await sleep(50);
  if (!isAlive(current.pid)) {
    const record = effectiveRecord(await readSessionRecord(dir), isAlive);
    return { record, stopped: true, forced: false };
  }
  // the supervisor did not finish: end everything it recorded, then record the stop ourselves
  try {
    process.kill(current.pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
  return forceStop(dir);
}
