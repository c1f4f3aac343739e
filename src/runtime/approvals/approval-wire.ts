/**
 * The messages of the approval socket once a caller has proved itself: `list` and `answer`
 * (the answerer is given by the connection, never by the message: a `user` field is ignored),
 * their replies, and the description of a refused connection — its reason, the method and
 * request it tried (short, plain names only) and the peer process, never a value it sent.
 */
import type { UnixPeer } from '../../foundation/process/unix-peer.js';
import type { ApprovalQueue } from './approval-queue.js';
import type { ApprovalAnswer, PendingApproval } from '../protocol/approval-types.js';

export type SocketRequest =
  | { readonly method: 'list' }
  | {
      readonly method: 'answer';
      readonly request: string;
      readonly decision: 'approve' | 'deny';
      readonly reason?: string;
    };

export type SocketReply =
  | { readonly approvals: PendingApproval[] }
  | { readonly answer: ApprovalAnswer; readonly request: PendingApproval }
  | { readonly error: { readonly code: string; readonly message: string } };

/** Answers a proven request; `by` is the OS user of the connection's peer. */
export function handleRequest(queue: ApprovalQueue, value: unknown, by: string): SocketReply {
  if (typeof value !== 'object' || value === null) {
    return { error: { code: 'invalid', message: 'expected a JSON object' } };
  }
  const request = value as Record<string, unknown>;
  if (request.method === 'list') return { approvals: queue.pending() };
  if (request.method === 'answer') {
    const id = request.request;
    const decision = request.decision;
    const reason = request.reason;
    if (
      typeof id !== 'string' ||
      (decision !== 'approve' && decision !== 'deny') ||
      (reason !== undefined && typeof reason !== 'string')
    ) {
      return { error: { code: 'invalid', message: 'malformed answer' } };
    }
    const result = queue.answer(id, decision, by, 'cli', reason);
    return result.ok
      ? { answer: result.answer, request: result.request }
      : { error: { code: result.reason, message: result.message } };
  }
  return { error: { code: 'invalid', message: 'unknown method' } };
}

/** A refused connection, as recorded. */
export interface Refusal {
  /** `unauthenticated`: no valid proof of the key; `sandboxed-caller`: inside a sandbox. */
  readonly code: 'unauthenticated' | 'sandboxed-caller';
  readonly message: string;
  readonly method?: string;
  readonly request?: string;
  readonly decision?: string;
  readonly peer_pid?: number;
  readonly peer_uid?: number;
  /** Set when the peer runs in another PID namespace than the supervisor (a sandbox). */
  readonly peer_sandboxed?: true;
}

const MESSAGES: Record<Refusal['code'], string> = {
  unauthenticated:
    "the approval socket answers only a caller that proves it holds the session's approval key, which the session's sandboxes cannot read; use 'codex-mmo session approvals|approve|deny' outside the session",
  'sandboxed-caller':
    'the approval socket does not answer a process inside a sandbox (another PID namespace); answer from a terminal outside the session',
};

/** A short plain name a caller sent, or nothing (never a long or odd value). */
function plain(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9_.-]{1,32}$/.test(value) ? value : undefined;
}

/** The record of a refused connection that sent `value` (a request, proven or not). */
export function refusal(code: Refusal['code'], value: unknown, peer?: UnixPeer): Refusal {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const method = plain(v.method);
  const request = plain(v.request);
  const decision = plain(v.decision);
  return {
    code,
    message: MESSAGES[code],
    ...(method !== undefined ? { method } : {}),
    ...(request !== undefined ? { request } : {}),
    ...(decision !== undefined ? { decision } : {}),
    ...(peer?.pids[0] !== undefined ? { peer_pid: peer.pids[0] } : {}),
    ...(peer !== undefined ? { peer_uid: peer.uid } : {}),
    ...(peer?.otherPidNamespace === true ? { peer_sandboxed: true as const } : {}),
  };
}
