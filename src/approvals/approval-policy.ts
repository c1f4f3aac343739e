/**
 * The answer policy codex-mmo gives every Codex process it drives through `codex app-server`:
 * approvals go to the session's queue and wait there for a person (or the timeout); anything
 * else a process asks its client (a server's own form, a tool's input request) is declined.
 */
import type { ApprovalPolicy } from '../codex/app-server-client.js';
import type { ApprovalQueue } from './approval-queue.js';
import { describeApprovalRequest } from './describe-request.js';

export interface PolicyScope {
  /** `root` or a participant id. */
  readonly process: string;
  readonly role: string;
  /** Values masked in what is shown to people. */
  readonly secrets: readonly string[];
}

export function queuePolicy(queue: ApprovalQueue, scope: PolicyScope): ApprovalPolicy {
  return async (request) => {
    const described = describeApprovalRequest(request, scope.secrets);
    if (described === undefined) return 'decline';
    const answer = await queue.ask({ process: scope.process, role: scope.role, ...described });
    return answer.decision === 'approve' ? 'accept' : 'decline';
  };
}
