/**
 * One authenticated relay connection in the supervisor: starts the route's real server and passes
 * MCP between it and Codex unchanged — requests, responses, notifications, cancellation and the
 * server's own requests (elicitation, sampling, roots) — except that `tools/list` answers carry
 * only the route's granted, still-pinned tools, a `tools/call` of any other tool or with a
 * credential value in its arguments is answered here as a tool error, credential values in
 * everything the server sends are masked, and every call is recorded.
 */
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { maskDeep, maskSecrets } from '../diagnostics/mask-secrets.js';
import { describeError } from '../errors.js';
import type { LaunchContext } from '../probe/launch-plan.js';
import type { ServerDefinition } from '../registry/types.js';
import {
  callerThread,
  summarizeArguments,
  type ArgumentsSummary,
  type CallOutcome,
  type CallReason,
  type CallRecord,
  type CallerThread,
} from './call-record.js';
import { findCredentialIn, type CredentialMatcher } from './credential-scan.js';
import { filterToolList, type DriftedTool, type ToolGate } from './tool-filter.js';
import { startUpstream, type Upstream } from './upstream.js';

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
}

/** What every connection of a gateway shares. */
export interface RelayShared {
  matcher(): CredentialMatcher;
  secrets(): readonly string[];
  record(entry: CallRecord): void;
  /** Tools of a route withheld for drift (the gateway reports each once). */
  drifted(route: Route, tools: readonly DriftedTool[]): void;
  /** Whether `tool` of the route was withheld for drift. */
  isDrifted(route: Route, tool: string): boolean;
  /** Called with the pid of a started stdio server, and with undefined when it is gone. */
  serverGroup(pid: number, alive: boolean): void;
  /** The server's stderr, masked, when the connection ends. */
  stderr(route: Route, text: string): void;
}

interface PendingCall {
  readonly tool: string;
  readonly started: number;
  readonly caller: CallerThread;
  readonly role: string | null;
  readonly args: ArgumentsSummary;
}

type Id = string | number;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function idOf(message: Record<string, unknown>): Id | undefined {
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** Lines of a failed server's stderr quoted in its failure. */
const STDERR_TAIL_LINES = 5;

/** `; its stderr ended with: …` (the last lines, unmasked: the caller masks), or nothing. */
function stderrTail(upstream: Upstream): string {
  const lines = upstream
    .stderrText()
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .slice(-STDERR_TAIL_LINES)
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l));
  return lines.length > 0 ? `; its stderr ended with: ${lines.join(' | ')}` : '';
}

/** An error with its cause (fetch failures hide the connection error there). */
function withCause(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause !== undefined && cause !== null
    ? `${describeError(error)} (${describeError(cause)})`
    : describeError(error);
}

/** The tool error a refused call is answered with. */
export function refusal(id: Id, text: string): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text }], isError: true },
  };
}

export class RelayConnection {
  private upstream: Upstream | undefined;
  private failure: string | undefined;
  private queue: JSONRPCMessage[] = [];
  private readonly lists = new Set<Id>();
  private readonly inits = new Set<Id>();
  private readonly calls = new Map<Id, PendingCall>();
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly route: Route,
    private readonly shared: RelayShared,
    /** The route's server, when the gateway started it ahead of the relay. */
    private readonly prestarted?: Promise<Upstream>,
  ) {
    socket.on('close', () => {
      void this.close();
    });
    void this.start();
  }

  private async start(): Promise<void> {
    let upstream: Upstream;
    try {
      upstream = await (this.prestarted ?? startUpstream(this.route.definition, this.route.launch));
    } catch (error) {
      this.fail(`server '${this.route.server}' could not start: ${describeError(error)}`);
      return;
    }
    if (this.closed) {
      await upstream.stop();
      return;
    }
    if (!upstream.alive()) {
      const why = upstream.describeExit();
      await upstream.stop();
      this.fail(
        `server '${this.route.server}' ended before it was used: ${why}${stderrTail(upstream)}`,
      );
      return;
    }
    this.upstream = upstream;
    if (upstream.pid !== undefined) this.shared.serverGroup(upstream.pid, true);
    upstream.transport.onmessage = (message) => {
      this.fromServer(message);
    };
    upstream.transport.onclose = () => {
      this.serverGone();
    };
    upstream.transport.onerror = () => {
      // an HTTP request that failed is answered through its own pending request
    };
    const queued = this.queue;
    this.queue = [];
    for (const message of queued) this.toServer(message);
  }

  private secrets(): readonly string[] {
    return this.upstream === undefined
      ? this.shared.secrets()
      : [...this.shared.secrets(), ...this.upstream.secrets];
  }

  private mask(text: string): string {
    return maskSecrets(text, this.secrets());
  }

  private write(message: JSONRPCMessage): void {
    if (!this.socket.destroyed) this.socket.write(`${JSON.stringify(message)}\n`);
  }

  /** The server could not start or is gone: requests get an error, then the relay ends. */
  private fail(reason: string): void {
    this.failure = this.mask(reason);
    for (const message of this.queue) this.answerFailed(message);
    this.queue = [];
    this.socket.end();
  }

  private answerFailed(message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    const id = idOf(m);
    if (id === undefined || typeof m.method !== 'string') return;
    this.write({
      jsonrpc: '2.0',
      id,
      error: { code: -32000, message: this.failure ?? 'the server is gone' },
    });
  }

  /** A message from Codex (through the relay). */
  fromCodex(message: JSONRPCMessage): void {
    if (this.closed) return;
    const m = message as Record<string, unknown>;
    const id = idOf(m);
    if (typeof m.method === 'string' && id !== undefined) {
      if (m.method === 'tools/list') this.lists.add(id);
      else if (m.method === 'initialize') this.inits.add(id);
      else if (m.method === 'tools/call' && !this.admitCall(id, m)) return;
    } else if (m.method === 'notifications/cancelled' && isObject(m.params)) {
      const target = m.params.requestId;
      if (typeof target === 'string' || typeof target === 'number') {
        this.finishCall(target, 'error', 'cancelled');
      }
    }
    if (this.failure !== undefined) {
      this.answerFailed(message);
      return;
    }
    if (this.upstream === undefined) {
      this.queue.push(message);
      return;
    }
    this.toServer(message);
  }

  private toServer(message: JSONRPCMessage): void {
    const upstream = this.upstream;
    if (upstream === undefined) return;
    upstream.transport.send(message).catch((error: unknown) => {
      const m = message as Record<string, unknown>;
      const id = idOf(m);
      if (id === undefined || typeof m.method !== 'string') return;
      this.finishCall(id, 'error', 'rpc-error');
      this.write({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32000,
          message: this.mask(
            `server '${this.route.server}'${this.route.definition.transport === 'streamable_http' ? ` at ${this.route.definition.url}` : ''}: ${withCause(error)}`,
          ),
        },
      });
    });
  }

  /** Whether a `tools/call` may go on to the server; a refused one is answered and recorded. */
  private admitCall(id: Id, m: Record<string, unknown>): boolean {
    const params = isObject(m.params) ? m.params : {};
    const tool = typeof params.name === 'string' ? params.name : '';
    const caller = callerThread(params._meta);
    const args = summarizeArguments(params.arguments, this.shared.matcher(), this.shared.secrets());
    // `code` names the rule, as the refusal's text and the call's recorded reason
    const role = this.roleOf(caller);
    const decline = (outcome: CallOutcome, code: CallReason, text: string): false => {
      this.write(refusal(id, text));
      this.log(tool, caller, role, args, outcome, code, 0);
      return false;
    };
    const server = this.route.server;
    if (!this.route.gate.allowed.has(tool)) {
      return decline(
        'denied',
        'tool-not-granted',
        `codex-mmo refused this call [tool-not-granted]: tool '${tool}' of server '${server}' is not granted to this process`,
      );
    }
    const threads = this.route.threads;
    if (threads !== undefined && !this.threadMay(threads, role, tool)) {
      return decline(
        'denied',
        'tool-not-granted-to-role',
        role === null
          ? `codex-mmo refused this call [tool-not-granted-to-role]: the calling thread could not be attributed to a role, and roles of this process have different grants on server '${server}'`
          : `codex-mmo refused this call [tool-not-granted-to-role]: tool '${tool}' of server '${server}' is not granted to role '${role}'`,
      );
    }
    if (this.shared.isDrifted(this.route, tool)) {
      return decline(
        'blocked',
        'tool-drift',
        `codex-mmo refused this call [tool-drift]: tool '${tool}' of server '${server}' differs from its pin in tool-mcp.lock and is withheld from this session`,
      );
    }
    const found = findCredentialIn(params.arguments, this.shared.matcher());
    if (found !== undefined) {
      return decline(
        'blocked',
        'credential-in-arguments',
        `codex-mmo refused this call [credential-in-arguments]: its arguments contain a credential of this session (${found}); credentials are never passed to tools`,
      );
    }
    this.calls.set(id, { tool, started: performance.now(), caller, role, args });
    return true;
  }

  /**
   * The role of the calling thread: the model wire's attribution (null for a thread it has not
   * attributed to this process); without per-thread grants, the root for a root thread.
   */
  private roleOf(caller: CallerThread): string | null {
    const threads = this.route.threads;
    if (threads === undefined) return caller.parent_thread === null ? this.route.role : null;
    const seen = caller.thread === null ? undefined : threads.roleOf(caller.thread);
    return seen?.process === this.route.process ? seen.role : null;
  }

  /** Whether `role` may call `tool`; an unattributed call only when every role has the same grant. */
  private threadMay(threads: ThreadGate, role: string | null, tool: string): boolean {
    if (role === null) return !threads.differs;
    return threads.roles[role]?.has(tool) === true;
  }

  private log(
    tool: string,
    caller: CallerThread,
    role: string | null,
    args: ArgumentsSummary,
    outcome: CallOutcome,
    reason: CallReason | undefined,
    durationMs: number,
  ): void {
    this.shared.record({
      time: new Date().toISOString(),
      process: this.route.process,
      role,
      thread: caller.thread,
      parent_thread: caller.parent_thread,
      server: this.route.server,
      tool,
      outcome,
      ...(reason !== undefined ? { reason } : {}),
      duration_ms: Math.round(durationMs * 1000) / 1000,
      arguments: args,
    });
  }

  private finishCall(id: Id, outcome: CallOutcome, reason?: CallReason): void {
    const call = this.calls.get(id);
    if (call === undefined) return;
    this.calls.delete(id);
    this.log(
      call.tool,
      call.caller,
      call.role,
      call.args,
      outcome,
      reason,
      performance.now() - call.started,
    );
  }

  /** A message from the server, on its way to Codex. */
  private fromServer(message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    const id = idOf(m);
    const secrets = this.secrets();
    const out: Record<string, unknown> = { ...m };
    for (const key of ['result', 'params', 'error'] as const) {
      if (key in out) out[key] = maskDeep(out[key], secrets);
    }
    if (id !== undefined && typeof m.method !== 'string') {
      if (this.inits.delete(id) && isObject(out.result)) {
        const version = out.result.protocolVersion;
        if (typeof version === 'string') this.upstream?.transport.setProtocolVersion?.(version);
      } else if (this.lists.delete(id) && 'result' in out) {
        const filtered = filterToolList(out.result, this.route.gate);
        out.result = filtered.result;
        if (filtered.drifted.length > 0) this.shared.drifted(this.route, filtered.drifted);
      } else if (this.calls.has(id)) {
        const failed = 'error' in out || (isObject(out.result) && out.result.isError === true);
        this.finishCall(
          id,
          failed ? 'error' : 'ok',
          failed ? ('error' in out ? 'rpc-error' : 'tool-error') : undefined,
        );
      }
    }
    this.write(out as JSONRPCMessage);
  }

  private serverGone(): void {
    if (this.closed) return;
    for (const id of [...this.calls.keys()]) this.finishCall(id, 'error', 'server-gone');
    const upstream = this.upstream;
    const reason = `server '${this.route.server}' ended: ${upstream?.describeExit() ?? 'it is gone'}${upstream !== undefined ? stderrTail(upstream) : ''}`;
    this.failure = this.mask(reason);
    // a handshake in flight is answered with the server's own last words, not a closed pipe
    for (const id of this.inits) {
      this.write({ jsonrpc: '2.0', id, error: { code: -32000, message: this.failure } });
    }
    this.inits.clear();
    this.socket.end();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.calls.keys()]) this.finishCall(id, 'error', 'server-gone');
    this.socket.destroy();
    const upstream = this.upstream;
    if (upstream === undefined) return;
    await upstream.stop();
    if (upstream.pid !== undefined) this.shared.serverGroup(upstream.pid, false);
    const stderr = upstream.stderrText();
    if (stderr !== '') this.shared.stderr(this.route, maskSecrets(stderr, this.secrets()));
  }
}
