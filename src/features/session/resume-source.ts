/**
 * What `session resume ID` continues, found before anything starts: the earlier session's record
 * (ended, stopped or failed — a killed supervisor's included), its own stored snapshot, the root's
 * Codex thread kept in its home, and its participants with their threads. Every reason it cannot
 * be resumed is a diagnostic; nothing is changed.
 */
import { basename, join } from 'node:path';

import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { CodexMmoError, describeError } from '../../foundation/errors.js';
import { isAlive } from '../../foundation/process/process-control.js';
import { livenessFor } from '../../foundation/process/session-marker.js';
import { readSnapshot } from '../../config/snapshot/snapshot-store.js';
import type { StoredSnapshot } from '../../config/snapshot/types.js';
import { processThread } from '../../runtime/session/rollout-threads.js';
import type { PreviousParticipant } from '../../runtime/mesh/previous-participants.js';
import {
  effectiveRecord,
  isActiveStatus,
  type SessionProcess,
  type SessionRecord,
} from '../../runtime/session/session-record.js';

const SNAPSHOT_ID = /^sha256:[0-9a-f]{64}$/;
import { locateSession, readSessionRecord } from '../../runtime/session/session-store.js';

export interface ResumeSource {
  /** The session continued. */
  readonly from: string;
  readonly record: SessionRecord;
  readonly stored: StoredSnapshot;
  /** The root's Codex thread and the home that keeps it. */
  readonly rootThread: string;
  readonly rootHome: string;
  readonly participants: readonly PreviousParticipant[];
}

export type ResumeLookup =
  | { readonly ok: true; readonly source: ResumeSource }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

const refuse = (code: string, message: string): ResumeLookup => ({
  ok: false,
  diagnostics: [diagnostic({ code, message })],
});

/** Finds session `idOrPrefix` under `stateDir` and what resuming it needs. */
export async function findResumeSource(
  stateDir: string,
  dataDir: string,
  idOrPrefix: string,
): Promise<ResumeLookup> {
  let record: SessionRecord;
  let dir: string;
  try {
    dir = await locateSession(stateDir, idOrPrefix);
    const stored = await readSessionRecord(dir);
    record = effectiveRecord(stored, livenessFor(stored.pid, stored.pid_start, isAlive));
  } catch (error) {
    const message = error instanceof CodexMmoError ? error.message : describeError(error);
    return refuse('session-not-found', message);
  }
  const id = record.id;
  if (isActiveStatus(record.status)) {
    return refuse(
      'session-still-running',
      `session ${id} is still running; stop it with 'codex-mmo session stop ${id}' (or let it end), then resume it`,
    );
  }
  let stored: StoredSnapshot;
  try {
    // the record's own full id, never a prefix that could name another snapshot
    if (!SNAPSHOT_ID.test(record.snapshot)) {
      throw new CodexMmoError('not-found', `'${record.snapshot}' is not a snapshot id`);
    }
    stored = await readSnapshot(dataDir, record.snapshot);
  } catch (error) {
    const why =
      error instanceof CodexMmoError && error.code === 'not-found' ? 'is gone' : 'cannot be read';
    return refuse(
      'resume-snapshot-gone',
      `session ${id} cannot be resumed: its snapshot ${record.snapshot.slice(0, 19)} ${why} (${describeError(error)}); a resumed session runs only its own snapshot, so start a new session with 'codex-mmo run ${record.profile}'`,
    );
  }
  // a process's thread is read only from its own home in the session's directory
  const homes = join(dir, 'homes');
  const ownHome = (p: SessionProcess): string | undefined =>
    p.home === join(homes, basename(p.home)) &&
    basename(p.home) === (p.kind === 'root' ? p.role : p.id)
      ? p.home
      : undefined;
  const root = record.processes.find((p) => p.kind === 'root');
  const rootHome = root === undefined ? undefined : ownHome(root);
  const thread = rootHome === undefined ? undefined : await processThread(rootHome);
  if (root === undefined || rootHome === undefined || thread === undefined) {
    return refuse(
      'resume-no-thread',
      `session ${id} cannot be resumed: its root kept no Codex thread (it ended before its first turn, or its home was removed); start a new session with 'codex-mmo run ${record.profile}'`,
    );
  }
  const participants = await Promise.all(
    record.processes
      .filter((p) => p.kind === 'participant')
      .map(async (p): Promise<PreviousParticipant | undefined> => {
        const home = ownHome(p);
        const own = home === undefined ? undefined : await processThread(home);
        return home === undefined || own === undefined
          ? undefined
          : {
              participant: p.id,
              role: p.role,
              owner: p.owner ?? 'root',
              status: p.status,
              home,
              thread: own.id,
            };
      }),
  );
  return {
    ok: true,
    source: {
      from: id,
      record,
      stored,
      rootThread: thread.id,
      rootHome,
      participants: participants.filter((p): p is PreviousParticipant => p !== undefined),
    },
  };
}
