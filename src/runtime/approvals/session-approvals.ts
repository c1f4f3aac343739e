/**
 * The people's side of a session's approval queue, for any terminal of the same user: list the
 * pending requests of a session (asked of its supervising process over the approval socket) and
 * answer one, proving with the session's approval key (readable outside the session's sandboxes
 * only) once the supervisor recorded in `session.json` (pid and start time) is verified as the
 * socket's listener. Results are data: a session that is not running has nothing pending; an
 * unknown or already answered request, a refused caller, a listener that is not the supervisor
 * or an unreachable supervisor is a `Diagnostic`.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { ListenerNotVerifiedError } from '../../foundation/errors.js';
import { isAlive } from '../../foundation/process/process-control.js';
import type { ExpectedListener } from '../../foundation/process/socket-listener.js';
import { effectiveRecord, isActiveStatus, type SessionRecord } from '../session/session-record.js';
import { readSessionRecord } from '../session/session-store.js';
import { approvalKeyPath, readApprovalKey } from './approval-auth.js';
import { askSupervisor } from './approval-client.js';
import type {
  ApprovalAnswer,
  ApprovalDecision,
  PendingApproval,
} from '../protocol/approval-types.js';

export interface SessionApprovals {
  readonly record: SessionRecord;
  readonly approvals: readonly PendingApproval[];
  /** Set when the session is running but its supervisor did not answer. */
  readonly problem?: Diagnostic;
}

function unreachable(record: SessionRecord, reason: string): Diagnostic {
  return diagnostic({
    code: 'approvals-unavailable',
    message: `session ${record.id} is running but its approval queue cannot be reached (${reason})`,
  });
}

/** Error codes of the socket that refuse the caller itself. */
const REFUSALS: ReadonlySet<string> = new Set(['unauthenticated', 'sandboxed-caller']);

function refused(reason: string): Diagnostic {
  return diagnostic({ code: 'approval-caller-refused', message: reason });
}

/** The session's supervisor, the only process that may listen on its approval socket. */
function supervisorOf(record: SessionRecord): ExpectedListener {
  return { pid: record.pid, start: record.pid_start };
}

/** A failure to ask: a listener that is not the supervisor is named as such, never sent a proof. */
function failure(record: SessionRecord, error: unknown): Diagnostic {
  if (error instanceof ListenerNotVerifiedError) {
    return diagnostic({ code: 'listener-not-verified', message: error.message });
  }
  return unreachable(record, error instanceof Error ? error.message : String(error));
}

/** The pending approval requests of the session in `dir`. */
export async function listSessionApprovals(dir: string): Promise<SessionApprovals> {
  const record = effectiveRecord(await readSessionRecord(dir), isAlive);
  const socket = record.approvals_socket;
  if (!isActiveStatus(record.status) || socket === undefined) return { record, approvals: [] };
  try {
    const key = await readApprovalKey(approvalKeyPath(dir));
    const reply = await askSupervisor(socket, supervisorOf(record), key, { method: 'list' });
    if ('approvals' in reply) return { record, approvals: reply.approvals };
    return {
      record,
      approvals: [],
      problem:
        'error' in reply && REFUSALS.has(reply.error.code)
          ? refused(reply.error.message)
          : unreachable(record, 'error' in reply ? reply.error.message : 'unexpected reply'),
    };
  } catch (error) {
    return { record, approvals: [], problem: failure(record, error) };
  }
}

export type AnswerOutcome =
  | { readonly ok: true; readonly answer: ApprovalAnswer; readonly request: PendingApproval }
  | { readonly ok: false; readonly diagnostic: Diagnostic };

/**
 * Answers one pending request of the session in `dir`; the supervisor records the OS user of
 * this process as the answerer (from the connection).
 */
export async function answerSessionApproval(
  dir: string,
  requestId: string,
  decision: ApprovalDecision,
  reason?: string,
): Promise<AnswerOutcome> {
  const record = effectiveRecord(await readSessionRecord(dir), isAlive);
  const socket = record.approvals_socket;
  if (!isActiveStatus(record.status) || socket === undefined) {
    return {
      ok: false,
      diagnostic: diagnostic({
        code: 'session-not-running',
        message: `session ${record.id} has ${record.status === 'running' ? 'no approval queue' : record.status}; its pending requests were denied when it ended`,
      }),
    };
  }
  try {
    const key = await readApprovalKey(approvalKeyPath(dir));
    const reply = await askSupervisor(socket, supervisorOf(record), key, {
      method: 'answer',
      request: requestId,
      decision,
      ...(reason !== undefined ? { reason } : {}),
    });
    if ('answer' in reply) return { ok: true, answer: reply.answer, request: reply.request };
    const error = 'error' in reply ? reply.error : { code: 'invalid', message: 'unexpected reply' };
    if (REFUSALS.has(error.code)) return { ok: false, diagnostic: refused(error.message) };
    return {
      ok: false,
      diagnostic: diagnostic({
        code:
          error.code === 'not-found'
            ? 'approval-not-found'
            : error.code === 'answered'
              ? 'approval-already-answered'
              : 'approvals-unavailable',
        message: error.message,
      }),
    };
  } catch (error) {
    return { ok: false, diagnostic: failure(record, error) };
  }
}
