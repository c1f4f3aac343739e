/**
 * The part of Codex 0.149's app-server protocol (JSON-RPC, one JSON object per line over stdio)
 * that codex-mmo uses, written from `codex app-server generate-ts`. Messages carry no `jsonrpc`
 * member. Only the fields codex-mmo reads are typed; everything else passes through untouched.
 */

export type RequestId = string | number;

/** A message as it travels on the wire. */
export interface WireMessage {
  readonly id?: RequestId;
  readonly method?: string;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

export interface ClientInfo {
  readonly name: string;
  readonly title: string | null;
  readonly version: string;
}

export interface InitializeResponse {
  readonly userAgent: string;
  readonly codexHome: string;
  readonly platformFamily: string;
  readonly platformOs: string;
}

export type AskForApproval = 'untrusted' | 'on-request' | 'never';
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

/** `thread/start` parameters (all optional; `config` holds per-thread config overrides). */
export interface ThreadStartParams {
  readonly model?: string;
  readonly modelProvider?: string;
  readonly cwd?: string;
  readonly approvalPolicy?: AskForApproval;
  readonly sandbox?: SandboxMode;
  readonly config?: Record<string, unknown>;
  readonly baseInstructions?: string;
  readonly developerInstructions?: string;
  readonly ephemeral?: boolean;
}

/**
 * `thread/resume` parameters: a thread kept in the home's rollouts, by id (measured on 0.149 and
 * 0.171: a copy of `sessions/` in a new home is enough), with overrides like `thread/start`'s.
 */
export interface ThreadResumeParams extends Omit<ThreadStartParams, 'ephemeral'> {
  readonly threadId: string;
}

export interface ThreadInfo {
  readonly id: string;
  readonly sessionId: string;
  readonly parentThreadId: string | null;
  readonly [key: string]: unknown;
}

export interface ThreadStartResponse {
  readonly thread: ThreadInfo;
  readonly model: string;
  readonly modelProvider: string;
  readonly cwd: string;
  readonly [key: string]: unknown;
}

export type UserInput =
  | { readonly type: 'text'; readonly text: string; readonly text_elements: readonly unknown[] }
  | { readonly type: 'localImage'; readonly path: string };

export interface TurnStartParams {
  readonly threadId: string;
  readonly input: readonly UserInput[];
  readonly cwd?: string;
  readonly approvalPolicy?: AskForApproval;
  readonly model?: string;
}

export type TurnStatus = 'completed' | 'interrupted' | 'failed' | 'inProgress';

export interface TurnError {
  readonly message: string;
  readonly codexErrorInfo: unknown;
  readonly additionalDetails: string | null;
}

export interface TurnInfo {
  readonly id: string;
  readonly items: readonly ThreadItem[];
  readonly status: TurnStatus;
  readonly error: TurnError | null;
  readonly [key: string]: unknown;
}

export interface TurnStartResponse {
  readonly turn: TurnInfo;
}

/** A thread item; `type` is e.g. `userMessage`, `agentMessage`, `mcpToolCall`, `collabAgentToolCall`. */
export interface ThreadItem {
  readonly type: string;
  readonly id: string;
  /** Present on `agentMessage` items. */
  readonly text?: string;
  readonly [key: string]: unknown;
}

export type McpServerStartupState = 'starting' | 'ready' | 'failed' | 'cancelled';

/** Params of notification `mcpServer/startupStatus/updated`. */
export interface McpServerStartupStatus {
  readonly threadId: string | null;
  readonly name: string;
  readonly status: McpServerStartupState;
  readonly error: string | null;
}

export interface McpServerStatus {
  readonly name: string;
  /** Tool name → MCP tool description, after Codex's enabled/disabled filters. */
  readonly tools: Record<string, { readonly name: string; readonly [key: string]: unknown }>;
  readonly serverInfo: { readonly name: string; readonly version: string } | null;
  readonly authStatus: string;
  readonly [key: string]: unknown;
}

export interface ListMcpServerStatusParams {
  readonly cursor?: string;
  readonly limit?: number;
  readonly detail?: 'full' | 'toolsAndAuthOnly';
  readonly threadId?: string;
}

export interface ListMcpServerStatusResponse {
  readonly data: readonly McpServerStatus[];
  readonly nextCursor: string | null;
}

export interface TurnCompletedParams {
  readonly threadId: string;
  readonly turn: TurnInfo;
}

export interface ItemNotificationParams {
  readonly threadId: string;
  readonly turnId: string;
  readonly item: ThreadItem;
}

export interface AgentMessageDeltaParams {
  readonly threadId: string;
  readonly turnId: string;
  readonly itemId: string;
  readonly delta: string;
}

/** A request from the server to the client, e.g. an approval of an MCP tool call. */
export interface ServerRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** A notification from the server. */
export interface ServerNotification {
  readonly method: string;
  readonly params: Record<string, unknown>;
}
