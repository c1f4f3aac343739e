/**
 * The answer policy codex-mmo gives every Codex process it drives through `codex app-server`:
 * approvals go to the session's queue and wait there for a person (or the timeout); anything
 * else a process asks its client (a server's own form, a tool's input request) is declined. A
 * request is the calling thread's role's: one for a tool outside that role's grant is refused
 * before anyone is asked, and refused or denied tool calls are recorded as calls.
 */
import type { ApprovalPolicy } from '../codex/app-server-client.js';
import { denialReason, type CallReason } from '../gateway/call-record.js';
import type { ApprovalGate } from './approval-gate.js';
import type { ApprovalQueue } from './approval-queue.js';
import { describeApprovalRequest, toolParamsOf } from './describe-request.js';
import { heldCallRefusal } from '../gateway/call-approvals.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';

export interface PolicyScope {
  /** `root` or a participant id. */
  readonly process: string;
  readonly role: string;
  /** Values masked in what is shown to people. */
  readonly secrets: readonly string[];
  /** Masks every credential of the session, every process's included (default: `secrets`). */
  readonly mask?: (text: string) => string;
  /** The calling thread's role and grants; without it every request is the process root's. */
  readonly gate?: ApprovalGate;
}

export function queuePolicy(queue: ApprovalQueue, scope: PolicyScope): ApprovalPolicy {
  return async (request) => {
    const described = describeApprovalRequest(request, scope.secrets);
    if (described === undefined) return 'decline';
    const gate = scope.gate;
    const thread = described.thread;
    const seen =
      gate !== undefined && thread !== undefined ? gate.roleOf(scope.process, thread) : undefined;
    const role = seen === undefined ? scope.role : seen;
    const { server, tool } = described;
    const toolCall =
      described.kind === 'mcp_tool_call' && server !== undefined && tool !== undefined;
    const refuse = (reason: CallReason): void => {
      if (gate === undefined || !toolCall) return;
      gate.record({
        time: new Date().toISOString(),
        process: scope.process,
        role,
        thread: thread ?? null,
        parent_thread: null,
        server,
        tool,
        outcome: 'denied',
        reason,
        duration_ms: 0,
      });
    };
    // the model reads who turned the call away and why, not Codex's bare rejection
    const explain = (text: string): void => {
      if (gate === undefined || !toolCall || thread === undefined) return;
      const params = toolParamsOf(request);
      gate.explain(scope.process, thread, {
        server,
        tool,
        params,
        text: scope.mask?.(text) ?? maskSecrets(text, scope.secrets),
      });
    };
    if (toolCall && gate !== undefined && (role === null || !gate.may(role, server, tool))) {
      refuse('tool-not-granted-to-role');
      const whose = role === null ? 'this thread' : `role '${role}'`;
      explain(
        `codex-mmo did not run ${server}.${tool}: it is not granted to ${whose} [tool-not-granted-to-role]`,
      );
      return 'decline';
    }
    const answer = await queue.ask({
      process: scope.process,
      role: role ?? scope.role,
      ...described,
    });
    if (answer.decision === 'approve') return 'accept';
    const reason = denialReason(answer.how);
    refuse(reason);
    if (toolCall && reason !== 'cancelled') {
      // a person's reason is theirs to give; a timeout or the session's end says what it is
      const said = answer.how === 'cli' || answer.how === 'tui' ? answer.reason : undefined;
      explain(heldCallRefusal({ server, tool, role: role ?? scope.role }, reason, said));
    }
    return 'decline';
  };
}
