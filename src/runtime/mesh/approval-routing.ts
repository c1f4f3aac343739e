/**
 * Approvals through the mesh: the session root of an interactive run may watch the session's
 * approval queue (requests and answers are pushed on its connection) and answer a request, so
 * participants' requests reach the person at the TUI too. Every other caller is refused.
 */
import {
  answerFromTui,
  watchFeed,
  type RootApprovalFeed,
} from '../approvals/root-approval-feed.js';
import { MeshError, type MeshCaller } from '../protocol/mesh-protocol.js';
import { ROOT_OWNER } from './caller-auth.js';
import { stringArg } from './mesh-args.js';

/** The approval feed, for the session root of an interactive run only. */
export function rootFeed(feed: RootApprovalFeed | undefined, caller: MeshCaller): RootApprovalFeed {
  if (caller.participant !== ROOT_OWNER || feed === undefined) {
    throw new MeshError(
      'refused',
      'only the session root of an interactive run is asked about approvals',
    );
  }
  return feed;
}

/** Pushes the feed's requests and answers to `push` until the returned function is called. */
export function pushApprovals(feed: RootApprovalFeed, push: (value: unknown) => void): () => void {
  return watchFeed(feed, {
    requested: (r) => {
      push({ push: 'approval.requested', request: r });
    },
    answered: (id) => {
      push({ push: 'approval.answered', request: id });
    },
  });
}

/** Answers a request of the feed (`request`, `decision`: approve or deny) for the root. */
export function answerApproval(
  feed: RootApprovalFeed | undefined,
  caller: MeshCaller,
  params: Record<string, unknown>,
): unknown {
  const watched = rootFeed(feed, caller);
  const id = stringArg(params, 'request') ?? '';
  const decision = params.decision;
  if (decision !== 'approve' && decision !== 'deny') {
    throw new MeshError('invalid', "argument 'decision' must be 'approve' or 'deny'");
  }
  const result = answerFromTui(watched, id, decision);
  if (!result.ok) {
    throw new MeshError(result.reason === 'answered' ? 'refused' : 'not-found', result.message);
  }
  return { answer: result.answer };
}
