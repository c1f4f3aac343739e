/**
 * The people's side of a session's approval queue, for any terminal of the same user: list the
 * pending requests of a session (asked of its supervising process over the approval socket) and
 * answer one. Results are data: a session that is not running has nothing pending; an unknown or
 * already answered request, or an unreachable supervisor, is a `Diagnostic`.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { isAlive } from '../process/process-control.js';
import { effectiveRecord, isActiveStatus, type SessionRecord } from '../session/session-record.js';
import { readSessionRecord } from '../session/session-store.js';
import { askSupervisor } from './approval-socket.js';
import type { ApprovalAnswer, ApprovalDecision, PendingApproval } from './approval-types.js';

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

/** The pending approval requests of the session in `dir`. */
export async function listSessionApprovals(dir: string): Promise<SessionApprovals> {
  const record = effectiveRecord(await readSessionRecord(dir), isAlive);
  const socket = record.approvals_socket;
  if (!isActiveStatus(record.status) || socket === undefined) return { record, approvals: [] };
  try {
    const reply = await askSupervisor(socket, { method: 'list' });
    if ('approvals' in reply) return { record, approvals: reply.approvals };
    return {
      record,
      approvals: [],
      problem: unreachable(record, 'error' in reply ? reply.error.message : 'unexpected reply'),
    };
  } catch (error) {
    return {
      record,
      approvals: [],
      problem: unreachable(record, error instanceof Error ? error.message : String(error)),
    };
  }
}

export type AnswerOutcome =
  | { readonly ok: true; readonly answer: ApprovalAnswer; readonly request: PendingApproval }
  | { readonly ok: false; readonly diagnostic: Diagnostic };

/** Answers one pending request of the session in `dir` as `user`. */
export async function answerSessionApproval(
  dir: string,
  requestId: string,
  decision: ApprovalDecision,
  user: string,
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
    const reply = await askSupervisor(socket, {
      method: 'answer',
      request: requestId,
      decision,
      user,
      ...(reason !== undefined ? { reason } : {}),
    });
    if ('answer' in reply) return { ok: true, answer: reply.answer, request: reply.request };
    const error = 'error' in reply ? reply.error : { code: 'invalid', message: 'unexpected reply' };
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
    return {
      ok: false,
      diagnostic: unreachable(record, error instanceof Error ? error.message : String(error)),
    };
  }
}
