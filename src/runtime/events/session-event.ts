/**
 * The data model of a session's event log (`<session>/events.jsonl`, one JSON object per line,
 * in order): processes starting and ending, turns, messages, tool calls with server and tool,
 * calls refused (a tool not offered, refused by the gateway, an approval denied or expired),
 * commands, approvals asked and answered, Tool MCP servers that failed, and listeners flooded with
 * connections that did not authenticate, each tagged with the process and role. Text is
 * masked before it is stored; an event never holds a credential value.
 */

export type SessionEventType =
  | 'process.started'
  | 'process.ended'
  | 'turn.started'
  | 'turn.completed'
  | 'message'
  | 'tool_call.started'
  | 'tool_call.completed'
  | 'tool_call.refused'
  | 'command'
  | 'file_change'
  | 'approval.requested'
  | 'approval.answered'
  /** A caller the approval socket refused (no proof of the session's key, or sandboxed). */
  | 'approval.refused'
  /** A Tool MCP server that could not start or answer (`status: start-failed`) or went away (`ended`). */
  | 'server.failed'
  /** The session began to end (a signal, `session stop`, the root ending): later requests are refused. */
  | 'session.ending'
  /** A listener reached its cap of connections waiting to authenticate (`listener`, `count`). */
  | 'listener.flood'
  /** A participant spawn or a server start the team budget refused (`kind`: the ceiling). */
  | 'budget.refused';

export interface SessionEvent {
  readonly time: string;
  readonly session: string;
  /** `root` or a participant id. */
  readonly process: string;
  readonly role: string;
  readonly type: SessionEventType;
  readonly thread?: string;
  readonly turn?: string;
  /** Turn, tool call or command status (`completed`, `failed`, …) or process status. */
  readonly status?: string;
  readonly server?: string;
  readonly tool?: string;
  /** The MCP method (or `http:<refusal>`) of a refused request that named no tool. */
  readonly method?: string;
  /** Message text, a command line, an error: masked, bounded. */
  readonly text?: string;
  /** Approval request id. */
  readonly approval?: string;
  readonly kind?: string;
  readonly decision?: string;
  readonly by?: string;
  readonly how?: string;
  readonly exit_code?: number;
  /** The flooded listener (`gateway-http`, `model-wire`, `approval-socket`, `mesh-broker`, …). */
  readonly listener?: string;
  /** How many connections were waiting to authenticate: the listener's cap. */
  readonly count?: number;
}

/** An event before the log stamps it with the session and, if missing, the time. */
export type EventInput = Omit<SessionEvent, 'session' | 'time'> & { readonly time?: string };

/** Longest text kept in one event (characters). */
export const MAX_EVENT_TEXT = 2000;
