/**
 * Whose approval a request is, and whether it may be asked at all (pure but for the callbacks):
 * the role of the thread that raised it, as the model wire attributed it (the process root's when
 * the wire has not seen the thread), and, for an MCP tool call, whether that role is granted the
 * tool. A request outside the calling role's grant is refused before anyone is asked; it and
 * every denied or expired approval of a tool call is recorded like any refused call.
 */
import type { CallRecord } from '../gateway/call-record.js';
import { MESH_SERVER_NAME } from '../protocol/mesh-protocol.js';
import { modelSafeName } from '../../config/compile/role-grants.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import type { DeniedCall } from '../protocol/approval-types.js';

export interface ApprovalGate {
  /** The role of `thread` in `process`: null when it is attributed to none, undefined if unseen. */
  roleOf(process: string, thread: string): string | null | undefined;
  /** Whether `role` is granted `tool` of `server`. */
  may(role: string, server: string, tool: string): boolean;
  /** Records a refused call (calls.jsonl and the session's events). */
  record(entry: CallRecord): void;
  /** Gives the model `denial.text` for a call of `thread` turned away after asking. */
  explain(process: string, thread: string, denial: DeniedCall): void;
}

/**
 * The gate of a session: the wire's thread attribution (`null` for a thread of another process)
 * and the plan's grants (`mmo_mesh` is the broker's to check, by thread, so it always passes).
 */
export function approvalGate(
  plan: ResolvedPlan,
  roleOfThread: (thread: string) => { process: string; role: string | null } | undefined,
  record: (entry: CallRecord) => void,
  explain: ApprovalGate['explain'] = () => undefined,
): ApprovalGate {
  return {
    roleOf(process, thread) {
      const seen = roleOfThread(thread);
      if (seen === undefined) return undefined;
      return seen.process === process ? seen.role : null;
    },
    may(role, server, tool) {
      if (server === MESH_SERVER_NAME) return true;
      // Codex names the tool as the server does; a model-safe spelling is accepted as well
      const granted = plan.roles[role]?.grants[server]?.enabled_tools ?? [];
      return granted.some((t) => t === tool || modelSafeName(t) === tool);
    },
    record,
    explain,
  };
}
