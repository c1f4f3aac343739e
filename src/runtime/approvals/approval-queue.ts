/**
 * A session's approval queue, owned by the supervising process: driven Codex processes ask
 * (`ask` resolves with the answer), people answer through `answer` (at most once per request),
 * an unanswered request is denied when its time is up, and `close` denies everything still
 * pending (the session is ending). Every request and every answer is appended to
 * `<session>/approvals.jsonl` (and the callers its socket refused); listeners hear of requests
 * and answers (the session's event log is one).
 */
import { AppendQueue } from '../../foundation/append-queue.js';
import { join } from 'node:path';

import type {
  AnswerChannel,
  ApprovalAnswer,
  ApprovalAsk,
  ApprovalDecision,
  PendingApproval,
} from '../protocol/approval-types.js';

/** Who answers for timeouts and an ending session. */
export const SUPERVISOR_USER = 'codex-mmo';

export interface ApprovalQueueOptions {
  readonly session: string;
  /** The session directory (`approvals.jsonl` goes there); none: nothing is recorded. */
  readonly dir?: string;
  readonly timeoutSec: number;
  readonly now?: () => Date;
}

export type AnswerResult =
  | { readonly ok: true; readonly answer: ApprovalAnswer; readonly request: PendingApproval }
  | { readonly ok: false; readonly reason: 'not-found' | 'answered'; readonly message: string };

export interface QueueListener {
  requested?(request: PendingApproval): void;
  answered?(request: PendingApproval, answer: ApprovalAnswer): void;
}

interface Entry {
  readonly request: PendingApproval;
  readonly resolve: (answer: ApprovalAnswer) => void;
  readonly timer: NodeJS.Timeout;
}

export class ApprovalQueue {
  private readonly pendingEntries = new Map<string, Entry>();
  private readonly answers = new Map<string, ApprovalAnswer>();
  private readonly listeners: QueueListener[] = [];
  private counter = 0;
  private closed = false;
  private readonly log: AppendQueue | undefined;

  constructor(private readonly options: ApprovalQueueOptions) {
    const dir = options.dir;
    this.log = dir !== undefined ? new AppendQueue(join(dir, 'approvals.jsonl')) : undefined;
  }

  get timeoutSec(): number {
    return this.options.timeoutSec;
  }

  /** Adds a listener; the returned function removes it. */
  listen(listener: QueueListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /** Pending requests, oldest first. */
  pending(): PendingApproval[] {
    return [...this.pendingEntries.values()].map((e) => e.request);
  }

  /** Resolves once the request is answered (by a person, the timeout or the session ending). */
  ask(what: ApprovalAsk): Promise<ApprovalAnswer> {
    return this.open(what).answer;
  }

  /** Queues a request: it, as listed (with its id), and its answer to come. */
  open(what: ApprovalAsk): { request: PendingApproval; answer: Promise<ApprovalAnswer> } {
    const now = this.now();
    const id = `a${++this.counter}`;
    const request: PendingApproval = {
      id,
      session: this.options.session,
      ...what,
      requested_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.options.timeoutSec * 1000).toISOString(),
    };
    this.record({ type: 'requested', ...request });
    for (const l of [...this.listeners]) l.requested?.(request);
    const answer = new Promise<ApprovalAnswer>((resolve) => {
      if (this.closed) {
        this.pendingEntries.set(id, { request, resolve, timer: setTimeout(() => undefined, 0) });
        this.settle(id, 'deny', SUPERVISOR_USER, 'session-ended', 'the session is ending');
        return;
      }
      const timer = setTimeout(() => {
        this.settle(
          id,
          'deny',
          SUPERVISOR_USER,
          'timeout',
          `not answered within ${this.options.timeoutSec} s`,
        );
      }, this.options.timeoutSec * 1000);
      timer.unref();
      this.pendingEntries.set(id, { request, resolve, timer });
    });
    return { request, answer };
  }

  /** Answers a pending request; a request is answered at most once. */
  answer(
    id: string,
    decision: ApprovalDecision,
    by: string,
    how: AnswerChannel,
    reason?: string,
  ): AnswerResult {
    return this.settle(id, decision, by, how, reason);
  }

  /** Denies every pending request (the session is ending); later requests are denied at once. */
  close(reason = 'the session ended'): Promise<void> {
    this.closed = true;
    for (const id of [...this.pendingEntries.keys()]) {
      this.settle(id, 'deny', SUPERVISOR_USER, 'session-ended', reason);
    }
    return this.flushed();
  }

  /** Records a connection the approval socket refused (nothing secret in `fields`). */
  recordRefusal(fields: Readonly<Record<string, unknown>>): void {
    this.record({ type: 'refused', ...fields });
  }

  /** Settles once every record written so far is on disk. */
  flushed(): Promise<void> {
    return this.log?.flushed() ?? Promise.resolve();
  }

  private settle(
    id: string,
    decision: ApprovalDecision,
    by: string,
    how: AnswerChannel,
    reason?: string,
  ): AnswerResult {
    const entry = this.pendingEntries.get(id);
    if (entry === undefined) {
      const earlier = this.answers.get(id);
      return earlier !== undefined
        ? {
            ok: false,
            reason: 'answered',
            message: `request ${id} was already answered (${earlier.decision === 'approve' ? 'approved' : 'denied'} by ${earlier.by} via ${earlier.how} at ${earlier.answered_at})`,
          }
        : {
            ok: false,
            reason: 'not-found',
            message: `no approval request ${id} in session ${this.options.session}; 'codex-mmo session approvals ${this.options.session}' lists the pending ones`,
          };
    }
    this.pendingEntries.delete(id);
    clearTimeout(entry.timer);
    const answer: ApprovalAnswer = {
      id,
      decision,
      by,
      how,
      answered_at: this.now().toISOString(),
      ...(reason !== undefined && reason !== '' ? { reason } : {}),
    };
    this.answers.set(id, answer);
    this.record({ type: 'answered', ...answer });
    for (const l of [...this.listeners]) l.answered?.(entry.request, answer);
    entry.resolve(answer);
    return { ok: true, answer, request: entry.request };
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private record(line: Record<string, unknown>): void {
    this.log?.append(`${JSON.stringify({ time: this.now().toISOString(), ...line })}\n`);
  }
}
