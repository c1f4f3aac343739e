/**
 * One Codex process's way to one Tool MCP server, as the gateway knows it (types and pure
 * questions): the process and its root role, the server's definition and granted tools, and —
 * where the model wire attributes threads — each role's grant, by which a caller's role is found
 * from its `_meta` thread and checked.
 */
import type { LaunchContext } from '../upstream/launch-plan.js';
import type { ServerDefinition } from '../../config/registry/types.js';
import type { CallerThread } from './call-record.js';
import type { ServerAccess } from './method-rules.js';
import type { ToolGate } from './tool-filter.js';
import type { ServerLease } from '../../config/snapshot/types.js';
import type { RouteApprovals } from './call-approvals.js';

/** The role a thread runs, as the model wire attributed it: null when it could not. */
export interface ThreadAttribution {
  readonly process: string;
  readonly role: string | null;
}

/** Per-thread grants of a route: each role of the process with its tools of the server. */
export interface ThreadGate {
  /** The model wire's view of a thread; undefined when it has not seen it. */
  roleOf(thread: string): ThreadAttribution | undefined;
  /** Tools of the server granted to each role of the process (no entry: no grant). */
  readonly roles: Readonly<Record<string, ReadonlySet<string>>>;
  /** True when some role of the process has other tools of the server than the root. */
  readonly differs: boolean;
  /** True when every role of the process is granted the server (absent: false). */
  readonly everyRole?: boolean;
}

/** One process's way to one server, as the gateway knows it. */
export interface Route {
  /** `root` or the participant id of the Codex process. */
  readonly process: string;
  /** The process root role. */
  readonly role: string;
  readonly server: string;
  readonly definition: ServerDefinition;
  readonly gate: ToolGate;
  /** How Codex would have started the server for this process. */
  readonly launch: LaunchContext;
  /** Grants by calling thread (native roles); absent: the process root's grant for every call. */
  readonly threads?: ThreadGate;
  /** The pin's lease: the server starts on first use (absent: with its first connection). */
  readonly lease?: ServerLease;
  /** Its tools' approval modes, where the gateway asks instead of Codex (see `call-approvals`). */
  readonly approvals?: RouteApprovals;
}

/**
 * The role of the calling thread: the model wire's attribution (null for a thread it has not
 * attributed to this process); without per-thread grants, the root for a root thread.
 */
export function callerRole(route: Route, caller: CallerThread): string | null {
  const threads = route.threads;
  if (threads === undefined) return caller.parent_thread === null ? route.role : null;
  const seen = caller.thread === null ? undefined : threads.roleOf(caller.thread);
  return seen?.process === route.process ? seen.role : null;
}

/**
 * Who of the process is granted the route's server. Without per-thread grants the process is
 * its root, granted when it has tools of the server.
 */
export function serverAccess(route: Route): ServerAccess {
  const threads = route.threads;
  if (threads === undefined) {
    const granted = route.gate.allowed.size > 0;
    return { granted: new Set(granted ? [route.role] : []), everyRole: granted };
  }
  return { granted: new Set(Object.keys(threads.roles)), everyRole: threads.everyRole === true };
}
