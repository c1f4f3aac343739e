/**
 * What `session resume ID` continues, found before anything starts: the earlier session's record
 * (ended, stopped or failed — a killed supervisor's included), its own stored snapshot, the root's
 * Codex thread kept in its home, and its participants with their threads. Every reason it cannot
 * be resumed is a diagnostic; nothing is changed.
 */
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
  type SessionRecord,
} from '../../runtime/session/session-record.js';
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
  try {
    const dir = await locateSession(stateDir, idOrPrefix);
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
    stored = await readSnapshot(dataDir, record.snapshot);
  } catch (error) {
    const why =
      error instanceof CodexMmoError && error.code === 'not-found' ? 'is gone' : 'cannot be read';
    return refuse(
      'resume-snapshot-gone',
      `session ${id} cannot be resumed: its snapshot ${record.snapshot.slice(0, 19)} ${why} (${describeError(error)}); a resumed session runs only its own snapshot, so start a new session with 'codex-mmo run ${record.profile}'`,
    );
  }
  const root = record.processes.find((p) => p.kind === 'root');
  const thread = root === undefined ? undefined : await processThread(root.home);
  if (root === undefined || thread === undefined) {
    return refuse(
      'resume-no-thread',
      `session ${id} cannot be resumed: its root kept no Codex thread (it ended before its first turn, or its home was removed); start a new session with 'codex-mmo run ${record.profile}'`,
    );
  }
  const participants = await Promise.all(
    record.processes
      .filter((p) => p.kind === 'participant')
      .map(async (p): Promise<PreviousParticipant | undefined> => {
        const own = await processThread(p.home);
        return own === undefined
          ? undefined
          : {
              participant: p.id,
              role: p.role,
              owner: p.owner ?? 'root',
              status: p.status,
              home: p.home,
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
      rootHome: root.home,
      participants: participants.filter((p): p is PreviousParticipant => p !== undefined),
    },
  };
}
