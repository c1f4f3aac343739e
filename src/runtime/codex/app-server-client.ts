/**
 * A client for `codex app-server`: spawns it with a given CODEX_HOME, environment and working
 * directory, speaks its JSON-RPC line protocol (typed requests with per-request timeouts,
 * notifications, server→client approval requests answered by a policy), and shuts it down
 * without leaving processes behind (the app-server runs in its own process group).
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { ProcessError } from '../../foundation/errors.js';
import { JsonLineDecoder, encodeJsonLine } from '../../foundation/json-lines.js';
import type {
  ClientInfo,
  InitializeResponse,
  ListMcpServerStatusParams,
  ListMcpServerStatusResponse,
  McpServerStartupStatus,
  McpServerStatus,
  RequestId,
  ServerNotification,
  ServerRequest,
  ThreadItem,
  ThreadResumeParams,
  ThreadStartParams,
  ThreadStartResponse,
  TurnInfo,
  TurnStartParams,
  TurnStartResponse,
  WireMessage,
} from './app-server-protocol.js';
import { endGroupRemains, signalGroup } from '../../foundation/process/process-control.js';
import { spawnContained } from '../../foundation/process/contained-spawn.js';
import type { ContainerMasks } from '../../foundation/process/container-masks.js';
import type { HostViewLaunch } from '../../foundation/process/host-view.js';

/** How the client answers an approval or input request from the server. */
export type ApprovalDecision = 'accept' | 'decline' | { readonly result: unknown };

/**
 * Decides a server→client request. Return `'accept'` or `'decline'` (translated into each
 * method's own answer shape) or `{ result }` to send a raw result. Throwing sends a JSON-RPC error.
 */
export type ApprovalPolicy = (
  request: ServerRequest,
) => ApprovalDecision | Promise<ApprovalDecision>;

export interface AppServerOptions {
  /** Path of the Codex binary. */
  readonly codexBin: string;
  /** The process's private Codex home; set as `CODEX_HOME` in the child environment. */
  readonly codexHome: string;
  /** The complete child environment (nothing is inherited). `CODEX_HOME` is added. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Extra arguments after `app-server`, e.g. `['--strict-config']` or `['-c', 'k=v']`. */
  readonly args?: readonly string[];
  /** Directories its container hides from it (`ContainerMasks`); spawning fails where it cannot. */
  readonly masks?: ContainerMasks;
  /** The host view it runs in (`processView`). */
  readonly view?: HostViewLaunch;
  readonly clientInfo?: ClientInfo;
  /** Default timeout of one request in milliseconds (default 60 000). */
  readonly requestTimeoutMs?: number;
  /** Answers approvals and input requests; the default declines everything. */
  readonly approvals?: ApprovalPolicy;
  /** Receives the server's stderr as it arrives (it is also kept, bounded, in `stderrTail`). */
  readonly onStderr?: (chunk: string) => void;
  /** Called with the spawned process's pid (its container) before anything else happens. */
  readonly onSpawn?: (pid: number) => void;
}

/** The outcome of one turn run to completion. */
export interface TurnResult {
  readonly turn: TurnInfo;
  /** Every item completed during the turn, in order. */
  readonly items: readonly ThreadItem[];
  /** The text of the last assistant message, if there was one. */
  readonly finalMessage: string | undefined;
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const DEFAULT_CLIENT_INFO: ClientInfo = { name: 'codex-mmo', title: 'codex-mmo', version: '0' };
const STDERR_TAIL_LIMIT = 64 * 1024;
/** File changes kept for their approval requests (`noteFileChange`). */
const MAX_FILE_CHANGES = 256;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The answer to a server request for a plain accept/decline decision, per method. */
export function approvalResult(request: ServerRequest, accept: boolean): unknown {
  switch (request.method) {
    case 'item/commandExecution/requestApproval':
    case 'item/fileChange/requestApproval':
      return { decision: accept ? 'accept' : 'decline' };
    case 'mcpServer/elicitation/request':
      return accept
        ? { action: 'accept', content: {}, _meta: null }
        : { action: 'decline', content: null, _meta: null };
    case 'item/permissions/requestApproval': {
      // grant what was asked (minus absent parts) or nothing
      const asked = isRecord(request.params.permissions) ? request.params.permissions : {};
      const granted = Object.fromEntries(Object.entries(asked).filter(([, v]) => v !== null));
      return { permissions: accept ? granted : {}, scope: 'turn' };
    }
    case 'item/tool/requestUserInput':
      return { answers: {} };
    case 'item/tool/call':
      return { contentItems: [], success: false };
    case 'execCommandApproval':
    case 'applyPatchApproval':
      return { decision: accept ? 'approved' : { denied: { rejection: 'declined by policy' } } };
    default:
      return undefined;
  }
}

/** The app-server answered a request with a JSON-RPC error (e.g. a required MCP server failed). */
export class AppServerRequestError extends ProcessError {
  readonly method: string;
  readonly rpcCode: number;
  /** The server's own error text. */
  readonly rpcMessage: string;
  constructor(method: string, error: { readonly code: number; readonly message: string }) {
    super('process-failed', `codex app-server ${method} failed: ${error.message}`);
    this.name = 'AppServerRequestError';
    this.method = method;
    this.rpcCode = error.code;
    this.rpcMessage = error.message;
  }
}

/**
 * Which of `servers` Codex names as failed in a `thread/start` error such as "required MCP
 * servers failed to initialize: a: reason; b: reason". Returns `[]` for any other error text.
 */
export function failedRequiredServers(errorText: string, servers: readonly string[]): string[] {
  const marker = 'required MCP servers failed to initialize:';
  const at = errorText.indexOf(marker);
  if (at < 0) return [];
  const entries = errorText
    .slice(at + marker.length)
    .split(';')
    .map((part) => part.trim());
  return servers.filter((name) => entries.some((entry) => entry.startsWith(`${name}: `)));
}

interface Pending {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * A running `codex app-server`. Create with `AppServerClient.start(options)`, which resolves
 * once `initialize` has been answered and `initialized` sent. Always `close()` it.
 *
 * ```ts
 * const client = await AppServerClient.start({ codexBin, codexHome, env, cwd });
 * try {
 *   const { thread } = await client.startThread({ cwd, approvalPolicy: 'never' });
 *   await client.waitForMcpStartup(thread.id, ['files'], 60_000); // statuses by server
 *   const result = await client.runTurn(thread.id, 'do the task', { timeoutMs: 600_000 });
 *   console.log(result.turn.status, result.finalMessage);
 * } finally {
 *   await client.close();
 * }
 * ```
 * A required MCP server that fails makes `startThread` reject with `AppServerRequestError`
 * (`failedRequiredServers(error.rpcMessage, names)` says which).
 */
export class AppServerClient {
  /** Resolves when the app-server process has exited. */
  readonly exited: Promise<ExitInfo>;

  private readonly child: ChildProcessWithoutNullStreams;
  private readonly options: AppServerOptions;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly listeners = new Set<(n: ServerNotification) => void>();
  private readonly startup = new Map<string, McpServerStartupStatus>();
  /** The files of each file change Codex has started and may ask about (`withFileChanges`). */
  private readonly fileChanges = new Map<string, Record<string, unknown>>();
  private nextId = 1;
  private stderr = '';
  private exit: ExitInfo | undefined;
  private init: InitializeResponse | undefined;

  private constructor(
    child: ChildProcessWithoutNullStreams,
    options: AppServerOptions,
    exited: Promise<ExitInfo>,
  ) {
    this.child = child;
    this.options = options;
    this.exited = exited;
  }

  /** Spawns `codex app-server`, then performs `initialize` and sends `initialized`. */
  static async start(options: AppServerOptions): Promise<AppServerClient> {
    // in a container of its own: its MCP servers, sandboxes and their commands end with it
    const child = spawnContained(options.codexBin, ['app-server', ...(options.args ?? [])], {
      cwd: options.cwd,
      env: { ...options.env, CODEX_HOME: options.codexHome },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      ...(options.masks !== undefined ? { masks: options.masks } : {}),
      ...(options.view !== undefined ? { view: options.view } : {}),
    }).child as ChildProcessWithoutNullStreams;
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const exited = new Promise<ExitInfo>((resolve) => {
      child.once('exit', (code, signal) => {
        resolve({ code, signal });
      });
    });
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const client = new AppServerClient(child, options, exited);
    client.wire();
    try {
      await spawned;
    } catch (error) {
      throw new ProcessError(
        'process-failed',
        `could not start ${options.codexBin} app-server: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    try {
      const init = await client.request<InitializeResponse>('initialize', {
        clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
        capabilities: null,
      });
      client.init = init;
      client.notify('initialized');
      return client;
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** The server's answer to `initialize` (user agent, resolved Codex home, platform). */
  get initializeResponse(): InitializeResponse {
    if (this.init === undefined) throw new ProcessError('process-failed', 'not initialized');
    return this.init;
  }

  /** The operating-system process id of the app-server (also its process group id). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last 64 KiB of the server's stderr. May contain whatever the server printed. */
  get stderrTail(): string {
    return this.stderr;
  }

  /** Exit status once the process has exited, else `undefined`. */
  get exitInfo(): ExitInfo | undefined {
    return this.exit;
  }

  private wire(): void {
    // spawn failures are reported by `start`; later process errors surface as exit or timeouts
    this.child.on('error', () => undefined);
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_LIMIT);
      this.options.onStderr?.(chunk);
    });
    this.child.stdin.on('error', () => {
      // the process went away; pending requests are failed by the exit handler
    });
    // lines that are not JSON are skipped
    const lines = new JsonLineDecoder((value) => {
      this.receive(value);
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      lines.push(chunk);
    });
    this.child.stdout.on('end', () => {
      lines.end();
    });
    this.child.once('exit', (code, signal) => {
      this.exit = { code, signal };
      const reason = new ProcessError(
        'process-failed',
        `codex app-server exited (${signal ?? `code ${String(code)}`})`,
      );
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        this.pending.delete(id);
        p.reject(reason);
      }
    });
  }

  private receive(parsed: unknown): void {
    if (!isRecord(parsed)) return;
    const message: WireMessage = parsed;
    if (message.method !== undefined && message.id !== undefined) {
      const params = isRecord(message.params) ? message.params : {};
      void this.answer({
        id: message.id,
        method: message.method,
        params: this.withFileChanges(message.method, params),
      });
      return;
    }
    if (message.method !== undefined) {
      const notification = {
        method: message.method,
        params: isRecord(message.params) ? message.params : {},
      };
      if (notification.method === 'mcpServer/startupStatus/updated') {
        const status = notification.params as unknown as McpServerStartupStatus;
        this.startup.set(`${status.threadId ?? ''}\u0000${status.name}`, status);
      }
      this.noteFileChange(notification);
      for (const listener of [...this.listeners]) listener(notification);
      return;
    }
    if (message.id === undefined) return;
    const pending = this.pending.get(message.id);
    if (pending === undefined) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error !== undefined) {
      pending.reject(new AppServerRequestError(pending.method, message.error));
    } else {
      pending.resolve(message.result);
    }
  }

  /** Keeps the files of a file change Codex starts (it asks about the change by its item id). */
  private noteFileChange(n: ServerNotification): void {
    const item = isRecord(n.params.item) ? n.params.item : undefined;
    if (item?.type !== 'fileChange' || typeof item.id !== 'string') return;
    if (n.method === 'item/completed') {
      this.fileChanges.delete(item.id);
      return;
    }
    if (n.method !== 'item/started' || !Array.isArray(item.changes)) return;
    // keyed by paths the model chose: no prototype to write through
    const files = Object.create(null) as Record<string, unknown>;
    for (const change of item.changes) {
      if (isRecord(change) && typeof change.path === 'string') {
        files[change.path] = { kind: change.kind ?? null };
      }
    }
    this.fileChanges.set(item.id, files);
    // a change nobody asked about is dropped once enough newer ones came
    if (this.fileChanges.size > MAX_FILE_CHANGES) {
      const oldest = this.fileChanges.keys().next().value;
      if (oldest !== undefined) this.fileChanges.delete(oldest);
    }
  }

  /**
   * A file change approval with the files it changes: 0.171 asks by the item's id alone, the
   * files came with the item's start; a request that names its files is left as it is.
   */
  private withFileChanges(
    method: string,
    params: Record<string, unknown>,
  ): Record<string, unknown> {
    if (method !== 'item/fileChange/requestApproval' || params.fileChanges !== undefined) {
      return params;
    }
    const files =
      typeof params.itemId === 'string' ? this.fileChanges.get(params.itemId) : undefined;
    return files === undefined ? params : { ...params, fileChanges: files };
  }

  /**
   * Answers one request of the server. An answer that comes after the app-server has ended (the
   * session stopped while a person was being asked) has nobody left to go to and is dropped.
   */
  private async answer(request: ServerRequest): Promise<void> {
    let reply: WireMessage;
    try {
      const decision = await (this.options.approvals?.(request) ?? 'decline');
      const result =
        typeof decision === 'string'
          ? approvalResult(request, decision === 'accept')
          : decision.result;
      reply =
        result === undefined
          ? { id: request.id, error: { code: -32601, message: `unsupported ${request.method}` } }
          : { id: request.id, result };
    } catch (error) {
      reply = {
        id: request.id,
        error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
      };
    }
    if (this.running) this.write(reply);
  }

  /** True while the app-server can still be written to. */
  private get running(): boolean {
    return (
      this.exit === undefined && !this.child.stdin.destroyed && !this.child.stdin.writableEnded
    );
  }

  private write(message: WireMessage): void {
    if (this.exit !== undefined || this.child.stdin.destroyed) {
      throw new ProcessError('process-failed', 'codex app-server is not running');
    }
    this.child.stdin.write(encodeJsonLine(message));
  }

  /** Sends a request and resolves with its result; rejects on error, exit or timeout. */
  request<T = unknown>(method: string, params?: unknown, timeoutMs?: number): Promise<T> {
    const id = this.nextId++;
    const limit = timeoutMs ?? this.options.requestTimeoutMs ?? 60_000;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new ProcessError(
            'timeout',
            `codex app-server did not answer ${method} within ${limit} ms`,
          ),
        );
      }, limit);
      this.pending.set(id, {
        method,
        resolve: (value) => {
          resolve(value as T);
        },
        reject,
        timer,
      });
      try {
        this.write(params === undefined ? { id, method } : { id, method, params });
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Sends a notification (no answer expected). */
  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Calls `listener` for every notification from now on; returns the unsubscribe function. */
  onNotification(listener: (notification: ServerNotification) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves with the first notification from now on that satisfies `predicate`. */
  waitForNotification(
    predicate: (notification: ServerNotification) => boolean,
    timeoutMs: number,
  ): Promise<ServerNotification> {
    return new Promise((resolve, reject) => {
      const stop = (): void => {
        clearTimeout(timer);
        unsubscribe();
      };
      const timer = setTimeout(() => {
        stop();
        reject(new ProcessError('timeout', `no matching notification within ${timeoutMs} ms`));
      }, timeoutMs);
      const unsubscribe = this.onNotification((n) => {
        if (predicate(n)) {
          stop();
          resolve(n);
        }
      });
      void this.exited.then(() => {
        stop();
        reject(new ProcessError('process-failed', 'codex app-server exited'));
      });
    });
  }

  /** `thread/start`. MCP servers start in the background; see `waitForMcpStartup`. */
  startThread(params: ThreadStartParams = {}, timeoutMs?: number): Promise<ThreadStartResponse> {
    return this.request<ThreadStartResponse>('thread/start', params, timeoutMs);
  }

  /**
   * `thread/resume`: continues a thread kept in the home's rollouts, its history in place; the
   * answer has `thread/start`'s shape, and MCP servers report their startup the same way.
   */
  resumeThread(params: ThreadResumeParams, timeoutMs?: number): Promise<ThreadStartResponse> {
    return this.request<ThreadStartResponse>('thread/resume', params, timeoutMs);
  }

  /** `turn/start` with one text input; resolves when the turn has started (not finished). */
  startTurn(
    threadId: string,
    text: string,
    extra: Omit<TurnStartParams, 'threadId' | 'input'> = {},
    timeoutMs?: number,
  ): Promise<TurnStartResponse> {
    return this.request<TurnStartResponse>(
      'turn/start',
      { ...extra, threadId, input: [{ type: 'text', text, text_elements: [] }] },
      timeoutMs,
    );
  }

  /**
   * Starts a turn and waits (at most `timeoutMs`) for `turn/completed`, collecting the turn's
   * completed items and its final assistant message.
   */
  async runTurn(
    threadId: string,
    text: string,
    options: { readonly timeoutMs: number } & Omit<TurnStartParams, 'threadId' | 'input'>,
  ): Promise<TurnResult> {
    const { timeoutMs, ...extra } = options;
    const items: { turnId: string; item: ThreadItem }[] = [];
    const completed = new Map<string, TurnInfo>();
    let wake: (() => void) | undefined;
    const unsubscribe = this.onNotification((n) => {
      if (n.params.threadId !== threadId) return;
      if (n.method === 'item/completed' && isRecord(n.params.item)) {
        items.push({ turnId: String(n.params.turnId), item: n.params.item as ThreadItem });
      } else if (n.method === 'turn/completed' && isRecord(n.params.turn)) {
        const turn = n.params.turn as unknown as TurnInfo;
        completed.set(turn.id, turn);
        wake?.();
      }
    });
    const deadline = Date.now() + timeoutMs;
    try {
      const started = await this.startTurn(threadId, text, extra, timeoutMs);
      const turnId = started.turn.id;
      while (!completed.has(turnId)) {
        const left = deadline - Date.now();
        if (left <= 0 || this.exit !== undefined) {
          throw new ProcessError(
            this.exit === undefined ? 'timeout' : 'process-failed',
            this.exit === undefined
              ? `turn ${turnId} did not complete within ${timeoutMs} ms`
              : 'codex app-server exited during the turn',
          );
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 250));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      const turn = completed.get(turnId) as TurnInfo;
      const own = items.filter((i) => i.turnId === turnId).map((i) => i.item);
      const messages = own.filter((i) => i.type === 'agentMessage' && typeof i.text === 'string');
      return { turn, items: own, finalMessage: messages.at(-1)?.text };
    } finally {
      unsubscribe();
    }
  }

  /** The latest startup status of each MCP server reported for `threadId` (by server name). */
  mcpStartupStatus(threadId: string): Record<string, McpServerStartupStatus> {
    const out: Record<string, McpServerStartupStatus> = {};
    for (const status of this.startup.values()) {
      if (status.threadId === threadId || status.threadId === null) out[status.name] = status;
    }
    return out;
  }

  /**
   * Waits until every named MCP server of `threadId` has left `starting` (ready, failed or
   * cancelled), or `timeoutMs` passes; returns the statuses seen. Servers never reported are absent.
   */
  async waitForMcpStartup(
    threadId: string,
    servers: readonly string[],
    timeoutMs: number,
  ): Promise<Record<string, McpServerStartupStatus>> {
    const settled = (): boolean => {
      const now = this.mcpStartupStatus(threadId);
      return servers.every((s) => now[s] !== undefined && now[s].status !== 'starting');
    };
    if (!settled()) {
      await this.waitForNotification(
        (n) => n.method === 'mcpServer/startupStatus/updated' && settled(),
        timeoutMs,
      ).catch((error: unknown) => {
        if (!(error instanceof ProcessError && error.code === 'timeout')) throw error;
      });
    }
    return this.mcpStartupStatus(threadId);
  }

  /** `mcpServerStatus/list`, following pagination: every server with its (filtered) tools. */
  async listMcpServerStatus(
    params: Omit<ListMcpServerStatusParams, 'cursor'> = {},
    timeoutMs?: number,
  ): Promise<McpServerStatus[]> {
    const out: McpServerStatus[] = [];
    let cursor: string | null = null;
    do {
      const page: ListMcpServerStatusResponse = await this.request<ListMcpServerStatusResponse>(
        'mcpServerStatus/list',
        cursor === null ? params : { ...params, cursor },
        timeoutMs,
      );
      out.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return out;
  }

  /**
   * Shuts the app-server down: closes its stdin (Codex exits on end of input and stops its MCP
   * servers), then after `graceMs` sends SIGTERM and finally SIGKILL to its whole process group.
   * Safe to call more than once.
   */
  async close(graceMs = 3_000): Promise<ExitInfo> {
    this.listeners.clear();
    if (this.exit === undefined) {
      this.child.stdin.end();
      if (!(await this.exitedWithin(graceMs))) {
        this.signalGroup('SIGTERM');
        if (!(await this.exitedWithin(2_000))) {
          this.signalGroup('SIGKILL');
        }
      }
    }
    const info = await this.exited;
    // Leftovers in the group (a server that ignored its closed stdin, a sandboxed command) go too.
    const pid = this.child.pid;
    if (pid !== undefined) await endGroupRemains(pid);
    return info;
  }

  /** Kills the app-server's process group at once. */
  kill(): void {
    this.signalGroup('SIGKILL');
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid !== undefined) signalGroup(pid, signal);
  }

  private async exitedWithin(ms: number): Promise<boolean> {
    if (this.exit !== undefined) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => {
        resolve(false);
      }, ms);
    });
    const result = await Promise.race([this.exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return result;
  }
}
