/**
 * `pruneSessions`: removes the directories of ended sessions under `<state>/sessions/`, optionally
 * only those that ended more than N days ago. A session whose record says it is active while its
 * supervising process lives, or that still has a live process, is never removed; nor is a
 * directory whose record cannot be read (a session being created). Each removal first renames
 * the directory to a hidden name, so no half-removed session is ever listed.
 */
import { randomBytes } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';

import { removeTree } from '../../../foundation/paths/remove-tree.js';
import {
  effectiveRecord,
  isActiveStatus,
  type SessionRecord,
} from '../../../runtime/session/session-record.js';
import {
  listSessionRecords,
  readSessionRecord,
  sessionDir,
  sessionsDir,
} from '../../../runtime/session/session-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneSessionsOptions {
  readonly stateDir: string;
  /** Only sessions that ended (or, without an end time, started) more than this many days ago. */
  readonly olderThanDays?: number;
  readonly now: Date;
  /** Whether a process id is alive (process-control's `isAlive`; tests may substitute). */
  readonly isAlive: (pid: number) => boolean;
}

export type KeptReason = 'running' | 'process-alive' | 'too-recent';

export interface PrunedSession {
  readonly id: string;
  readonly status: string;
  readonly profile: string;
  readonly started: string;
  readonly ended?: string;
}

export interface PruneSessionsResult {
  readonly removed: readonly PrunedSession[];
  readonly kept: readonly { readonly id: string; readonly reason: KeptReason }[];
}

/** Why `record` must stay, or undefined when it may go. */
export function keepReason(
  record: SessionRecord,
  options: Pick<PruneSessionsOptions, 'olderThanDays' | 'now' | 'isAlive'>,
): KeptReason | undefined {
  if (isActiveStatus(record.status) && options.isAlive(record.pid)) return 'running';
  const effective = effectiveRecord(record, options.isAlive);
  if (isActiveStatus(effective.status)) return 'running';
  const alive = record.processes.some(
    (p) => isActiveStatus(p.status) && p.pid !== undefined && options.isAlive(p.pid),
  );
  if (alive) return 'process-alive';
  if (options.olderThanDays !== undefined) {
    const at = Date.parse(record.ended ?? record.started);
    const age = options.now.getTime() - (Number.isNaN(at) ? options.now.getTime() : at);
    if (age < options.olderThanDays * DAY_MS) return 'too-recent';
  }
  return undefined;
}

export async function pruneSessions(options: PruneSessionsOptions): Promise<PruneSessionsResult> {
  const removed: PrunedSession[] = [];
  const kept: { id: string; reason: KeptReason }[] = [];
  for (const record of await listSessionRecords(options.stateDir)) {
    const dir = sessionDir(options.stateDir, record.id);
    // read again right before deciding: the supervisor may have written since the listing
    let latest: SessionRecord;
    try {
      latest = await readSessionRecord(dir);
    } catch {
      continue;
    }
    const reason = keepReason(latest, options);
    if (reason !== undefined) {
      kept.push({ id: latest.id, reason });
      continue;
    }
    const hidden = join(
      sessionsDir(options.stateDir),
      `.pruning-${latest.id}-${randomBytes(4).toString('hex')}`,
    );
    try {
      await rename(dir, hidden);
    } catch {
      continue; // removed or renamed meanwhile
    }
    await removeTree(hidden);
    removed.push({
      id: latest.id,
      status: effectiveRecord(latest, options.isAlive).status,
      profile: latest.profile,
      started: latest.started,
      ...(latest.ended !== undefined ? { ended: latest.ended } : {}),
    });
  }
  return { removed, kept };
}
