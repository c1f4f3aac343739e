/**
 * Which MCP messages a Codex process may send to a Tool MCP server through the gateway (pure):
 * every method has a rule, and a method without one is refused. Requests that reach the server's
 * data need a role granted that server; the calling role comes from the request's `_meta` thread,
 * and a request that names no thread the model wire attributed is admitted only when every role
 * of the process is granted the server, so it never widens what a role reaches. The 2026-07-28
 * methods have rules as the 2025 ones do; a multi round-trip retry (`inputResponses`,
 * `requestState` in its params) is the same method again, held to the same rule and check.
 */

/** What a method of a request needs before it is forwarded. */
export type RequestRule =
  /** Handshake and liveness: forwarded on every route. */
  | 'connection'
  /** `tools/list`: answered for the process, narrowed to its granted, still-pinned tools. */
  | 'tool-list'
  /** `tools/call`: the calling role's grant of that tool, then pins and the credential check. */
  | 'tool-call'
  /** The calling role must be granted the server (resources and prompts, read only). */
  | 'granted-server'
  /** Never forwarded. */
  | 'refused';

/** Rules of the requests a client (Codex) may send, by method; any other method is refused. */
export const REQUEST_RULES: Readonly<Record<string, RequestRule>> = {
  initialize: 'connection',
  ping: 'connection',
  // 2026-07-28: what the server speaks, its capabilities and instructions (pinned where pinned)
  'server/discover': 'connection',
  'tools/list': 'tool-list',
  'tools/call': 'tool-call',
  'resources/list': 'granted-server',
  'resources/templates/list': 'granted-server',
  'resources/read': 'granted-server',
  'prompts/list': 'granted-server',
  'prompts/get': 'granted-server',
  // a subscription outlives the request and reaches every thread of the connection
  'resources/subscribe': 'refused',
  'resources/unsubscribe': 'refused',
  // 2026-07-28: a subscription stream, refused as resource subscriptions are
  'subscriptions/listen': 'refused',
  // argument completion sends what is typed to the server; Codex does not use it
  'completion/complete': 'refused',
  // changes the server's logging for every role of the connection
  'logging/setLevel': 'refused',
  // task results would reach a role outside the call that started the task
  'tasks/get': 'refused',
  'tasks/list': 'refused',
  'tasks/result': 'refused',
  'tasks/cancel': 'refused',
  'tasks/update': 'refused',
};

/** Notifications a client may send; any other is dropped. */
export const FORWARDED_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
]);

/** Requests of the server that a client's answer may go back to (the answer is checked too). */
export const SERVER_REQUESTS: ReadonlySet<string> = new Set([
  'ping',
  'roots/list',
  'sampling/createMessage',
  'elicitation/create',
]);

/** The rule of a request method: `refused` for a method without one. */
export function requestRule(method: string): RequestRule {
  return Object.hasOwn(REQUEST_RULES, method) ? (REQUEST_RULES[method] ?? 'refused') : 'refused';
}

/** Whether a request of `method` is written to the calls log when it is admitted. */
export function recordsAdmitted(method: string): boolean {
  const rule = requestRule(method);
  return rule === 'tool-call' || rule === 'granted-server';
}

/** Who is granted a route's server among the roles of its process. */
export interface ServerAccess {
  /** Roles of the process granted the server. */
  readonly granted: ReadonlySet<string>;
  /** True when every role of the process is granted the server. */
  readonly everyRole: boolean;
}

/**
 * Whether the caller may reach the server's resources and prompts: its role is granted the
 * server, or, when the caller's role is not known (null), every role of the process is.
 */
export function mayReachServer(access: ServerAccess, role: string | null): boolean {
  return role === null ? access.everyRole : access.granted.has(role);
}
