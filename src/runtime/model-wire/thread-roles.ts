/**
 * Which role each Codex thread of a session runs (state, no IO). A thread is attributed on its
 * first request and keeps that attribution: a thread with no parent is its process's root role
 * when its developer messages carry the root's rendered instructions; a sub-agent's thread
 * (its request names a parent thread) is the native role of the same process whose rendered
 * instructions it carries exactly — one role, or several that are offered the same — and that
 * role must be one of its parent role's `native_agents`: a sub-agent of any other role of the
 * process is refused (its requests never reach the provider). Anything else is unattributed,
 * and an unattributed thread is offered no MCP server at all.
 */
import type { WireProcess, WireRole } from '../../config/compile/role-grants.js';
import type { WireIdentity } from './wire-request.js';

export type Attribution =
  | { readonly ok: true; readonly role: WireRole }
  | {
      readonly ok: false;
      readonly reason: string;
      /** True for a sub-agent its parent role may not start: its requests are refused. */
      readonly refused?: boolean;
    };

export interface ThreadEntry {
  /** The process id (`root` for the session root process, a participant id otherwise). */
  readonly process: string;
  readonly thread: string;
  readonly parentThread?: string;
  /** The role, or null when the thread could not be attributed. */
  readonly role: string | null;
  readonly reason?: string;
  /** True when the thread's requests are refused (a sub-agent its parent may not start). */
  readonly refused?: boolean;
}

/** True when two roles are offered and allowed the same: tools, mesh lists, native roles. */
function sameOffer(a: WireRole, b: WireRole): boolean {
  const view = (r: WireRole): string =>
    JSON.stringify([
      r.tools,
      r.mesh,
      [...r.spawn].sort(),
      [...r.control].sort(),
      [...r.native].sort(),
    ]);
  return view(a) === view(b);
}

function carries(identity: WireIdentity, role: WireRole): boolean {
  return role.instructions !== '' && identity.developerTexts.includes(role.instructions);
}

/** Attributes a thread's first request to a role of `process` (pure). */
export function attribute(
  process: WireProcess,
  identity: WireIdentity,
  parentRole: string | null | undefined,
): Attribution {
  const root = process.roles[process.root];
  if (root === undefined) return { ok: false, reason: `process ${process.root} has no root role` };
  if (identity.parentThreadId === undefined) {
    if (identity.subagent !== undefined) {
      return { ok: false, reason: `a sub-agent request (${identity.subagent}) names no parent` };
    }
    if (root.instructions === '' || carries(identity, root)) return { ok: true, role: root };
    return {
      ok: false,
      reason: `a thread without a parent does not carry the instructions of root role ${root.role}`,
    };
  }
  if (parentRole === undefined) {
    return { ok: false, reason: `parent thread ${identity.parentThreadId} is not known` };
  }
  if (parentRole === null) {
    return { ok: false, reason: `parent thread ${identity.parentThreadId} is unattributed` };
  }
  const carried = Object.values(process.roles).filter(
    (r) => r.role !== process.root && carries(identity, r),
  );
  if (carried.length === 0) {
    return { ok: false, reason: 'a sub-agent carries the instructions of no native role' };
  }
  const parent = process.roles[parentRole];
  const candidates = carried.filter((r) => parent?.native.includes(r.role) === true);
  const first = candidates[0];
  if (first === undefined) {
    const native = parent?.native ?? [];
    return {
      ok: false,
      refused: true,
      reason: `role ${parentRole} may not start a sub-agent of role ${carried.map((c) => c.role).join(' or ')}: its native_agents allow ${native.length === 0 ? 'none' : native.join(', ')}`,
    };
  }
  if (candidates.every((c) => sameOffer(c, first))) return { ok: true, role: first };
  return {
    ok: false,
    reason: `a sub-agent carries the instructions of several native roles (${candidates.map((c) => c.role).join(', ')}) that are granted differently`,
  };
}

/** The session's thread → role map, filled as requests arrive. */
export class ThreadRoles {
  private readonly threads = new Map<string, ThreadEntry & { wire?: WireRole }>();

  /** The role of a thread already seen, or null when it is unattributed; undefined if unseen. */
  roleOfThread(threadId: string): string | null | undefined {
    return this.threads.get(threadId)?.role;
  }

  entry(threadId: string): ThreadEntry | undefined {
    return this.threads.get(threadId);
  }

  /**
   * The attribution of one request of `process`: a thread seen before keeps its attribution
   * (within the same process only; `processId` names the process instance); a new thread is attributed and remembered.
   */
  resolve(
    processId: string,
    process: WireProcess,
    identity: WireIdentity,
  ): { attribution: Attribution; entry: ThreadEntry; first: boolean } {
    const thread = identity.threadId;
    if (thread === undefined) {
      const attribution: Attribution = { ok: false, reason: 'the request names no thread' };
      return {
        attribution,
        entry: { process: processId, thread: '', role: null, reason: attribution.reason },
        first: true,
      };
    }
    const known = this.threads.get(thread);
    if (known !== undefined) {
      const attribution: Attribution =
        known.process !== processId
          ? { ok: false, reason: `thread ${thread} belongs to another process` }
          : known.wire !== undefined
            ? { ok: true, role: known.wire }
            : {
                ok: false,
                reason: known.reason ?? 'unattributed',
                ...(known.refused === true ? { refused: true } : {}),
              };
      return { attribution, entry: known, first: false };
    }
    const parent =
      identity.parentThreadId !== undefined ? this.threads.get(identity.parentThreadId) : undefined;
    const parentRole =
      parent === undefined ? undefined : parent.process === processId ? parent.role : null;
    const attribution = attribute(process, identity, parentRole);
    const entry: ThreadEntry & { wire?: WireRole } = {
      process: processId,
      thread,
      ...(identity.parentThreadId !== undefined ? { parentThread: identity.parentThreadId } : {}),
      role: attribution.ok ? attribution.role.role : null,
      ...(attribution.ok
        ? { wire: attribution.role }
        : {
            reason: attribution.reason,
            ...(attribution.refused === true ? { refused: true } : {}),
          }),
    };
    this.threads.set(thread, entry);
    return { attribution, entry, first: true };
  }
}
