/**
 * The data model of a session's approval queue: a request a driven Codex process asked its
 * client (an MCP tool call, a command, a file change, a permission), as listed to people, and the
 * answer it got — who gave it, when and how. Holds names and masked previews, never a credential.
 */

export type ApprovalKind = 'mcp_tool_call' | 'command' | 'file_change' | 'permissions';

/** A request waiting for a person (`session approvals --json` prints these). */
export interface PendingApproval {
  readonly id: string;
  readonly session: string;
  /** `root` or a participant id. */
  readonly process: string;
  readonly role: string;
  readonly kind: ApprovalKind;
  readonly thread?: string;
  /** The MCP server of a tool call. */
  readonly server?: string;
  /** The MCP tool, the command line, or the changed files. */
  readonly tool?: string;
  /** A masked rendering of the arguments (JSON text, at most a few KiB). */
  readonly arguments: string;
  /** Codex's own question, masked. */
  readonly message?: string;
  readonly requested_at: string;
  readonly expires_at: string;
}

export type ApprovalDecision = 'approve' | 'deny';

/**
 * How an answer came: a person at a terminal, the TUI, the timeout, the session ending, or the
 * request withdrawn (the call it was for was cancelled, or its connection ended).
 */
export type AnswerChannel = 'cli' | 'tui' | 'timeout' | 'session-ended' | 'withdrawn';

export interface ApprovalAnswer {
  readonly id: string;
  readonly decision: ApprovalDecision;
  /** The OS user who answered (`codex-mmo` for a timeout or an ending session). */
  readonly by: string;
  readonly how: AnswerChannel;
  readonly answered_at: string;
  readonly reason?: string;
}

/** What a process asks, before the queue gives it an id and times. */
export interface ApprovalAsk {
  readonly process: string;
  readonly role: string;
  readonly kind: ApprovalKind;
  readonly thread?: string;
  readonly server?: string;
  readonly tool?: string;
  readonly arguments: string;
  readonly message?: string;
}

/** Default time an unanswered request waits before it is declined (seconds). */
export const DEFAULT_APPROVAL_TIMEOUT_SEC = 900;

/** A tool call turned away after asking, and what the model reads for it instead of Codex's text. */
export interface DeniedCall {
  /** The server's registry ID and the tool as the server names it. */
  readonly server: string;
  readonly tool: string;
  /** The call's arguments as Codex asked about them. */
  readonly params: unknown;
  readonly text: string;
}
