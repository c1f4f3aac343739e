/**
 * The supervisor's side of putting participants' approval requests to the person at an
 * interactive root's TUI: the root's `mmo_mesh` server watches the queue (every pending
 * participant request, then each new one and each answer) and answers on the person's behalf
 * (`how: "tui"`). The queue stays the one place a request is answered, so the first answer wins.
 */
import type { AnswerResult, ApprovalQueue } from './approval-queue.js';
import type { ApprovalDecision, PendingApproval } from '../protocol/approval-types.js';

export interface RootApprovalFeed {
  readonly queue: ApprovalQueue;
  /** The OS user at the TUI (the one who started the session), recorded as `by`. */
  readonly user: string;
}

export interface FeedListener {
  requested(request: PendingApproval): void;
  answered(id: string): void;
}

/** Requests the TUI is asked about: participants' (the interactive root asks its own). */
function forTui(request: PendingApproval): boolean {
  return request.process !== 'root';
}

/** Sends the pending participant requests, then each new one and each answer; returns the stop. */
export function watchFeed(feed: RootApprovalFeed, listener: FeedListener): () => void {
  const stop = feed.queue.listen({
    requested: (r) => {
      if (forTui(r)) listener.requested(r);
    },
    answered: (r) => {
      if (forTui(r)) listener.answered(r.id);
    },
  });
  for (const r of feed.queue.pending()) if (forTui(r)) listener.requested(r);
  return stop;
}

/** Answers a participant's request from the TUI; the root's own or an unknown one is not found. */
export function answerFromTui(
  feed: RootApprovalFeed,
  id: string,
  decision: ApprovalDecision,
): AnswerResult {
  const request = feed.queue.pending().find((r) => r.id === id);
  if (request !== undefined && !forTui(request)) {
    return { ok: false, reason: 'not-found', message: `request ${id} is not a participant's` };
  }
  return feed.queue.answer(id, decision, feed.user, 'tui');
}
