/**
 * One authenticated relay connection in the supervisor: starts the route's real server and passes
 * MCP between it and Codex, forwarding only what a rule admits (method-rules): each request is
 * decided by its method's rule, the calling role's grant and the credential check over every
 * value of its params (request-gate) — a refused `tools/call` is answered as a tool error, any
 * other refused request as a JSON-RPC error, an unknown notification or stray answer is dropped —
 * and every refusal is recorded. `tools/list` answers carry only the route's granted,
 * still-pinned tools; credential values in everything the server sends are masked.
 */
import { performance } from 'node:perf_hooks';

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { describeError } from '../../foundation/errors.js';
import {
  callerThread,
  safeText,
  summarizeArguments,
  type ArgumentsSummary,
  type CallOutcome,
  type CallReason,
  type CallRecord,
  type CallerThread,
  type AnswerMask,
} from './call-record.js';
import {
  credentialMatcher,
  findCredentialIn,
  type CredentialMatcher,
} from '../../foundation/diagnostics/credential-scan.js';
import type { CodexChannel } from './codex-channel.js';
import { maskAnswer } from './mask-answer.js';
import { FORWARDED_NOTIFICATIONS, SERVER_REQUESTS, recordsAdmitted } from './method-rules.js';
import { decideRequest, type Decline, type RequestDecision } from './request-gate.js';
import {
  METHOD_NOT_FOUND,
  REFUSED_CODE,
  idOf,
  isObject,
  readClientMessage,
  rebuild,
  refusal,
  rpcRefusal,
  type ClientMessage,
  type Id,
} from './relay-messages.js';
import { callerRole, type Route } from './route.js';
import { stderrLines, withCause, type ServerFailure } from './server-failure.js';
import { filterToolList, type DriftedTool } from './tool-filter.js';
import type { Upstream } from '../upstream/upstream.js';
import { DEFAULT_STARTUP_TIMEOUT_SEC } from '../upstream/launch-plan.js';
import { leaseHandshake, leaseInitializeResult } from './lease.js';
import { pinInitialize } from './initialize-pin.js';
import { handshakeOf } from '../protocol/mcp-versions.js';
import { HeldCalls, type CallAsker } from './held-calls.js';

/** Which of several maskings of one message the record keeps: the strongest. */
const MASK_RANK: Record<AnswerMask | 'none', number> = {
  none: 0,
  'credential-in-answer': 1,
  'credential-joined-in-answer': 2,
  'answer-withheld': 3,
};

/** Requests a lease answers while its server has not started. */
const LEASE_ANSWERS = new Set(['initialize', 'ping', 'tools/list']);

export type { Route, ThreadAttribution, ThreadGate } from './route.js';
export { refusal } from './relay-messages.js';

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
  /** The server could not start, did not answer, or went away (once per connection). */
  failed(failure: ServerFailure): void;
  /** Whether the session is ending: requests are refused and calls in flight end `session-ended`. */
  stopping(): boolean;
  /** Starts the route's server within the session's budget (rejects when a ceiling refuses). */
  start(route: Route): Promise<Upstream>;
  /** The session's approval queue, for calls the gateway asks about (absent: it asks none). */
  readonly asker?: CallAsker;
}

interface PendingCall {
  readonly method: string;
  readonly tool: string;
  readonly started: number;
  readonly caller: CallerThread;
  readonly role: string | null;
  readonly args: ArgumentsSummary;
}

const NO_CALLER: CallerThread = { thread: null, parent_thread: null };

/** A held call's arguments as the person reads them: the masked preview, and its whole size. */
function shownArguments(args: ArgumentsSummary): string {
  return args.size > args.preview.length
    ? `${args.preview} (${String(args.size)} bytes in all)`
    : args.preview;
}

/** `; its stderr ended with: …` (the last lines, unmasked: the caller masks), or nothing. */
function stderrTail(upstream: Upstream): string {
  const lines = stderrLines(upstream.stderrText());
  return lines.length > 0 ? `; its stderr ended with: ${lines.join(' | ')}` : '';
}

export class RelayConnection {
  private upstream: Upstream | undefined;
  private failure: string | undefined;
  private queue: JSONRPCMessage[] = [];
  private readonly lists = new Set<Id>();
  private readonly inits = new Set<Id>();
  private readonly calls = new Map<Id, PendingCall>();
  /** Requests of the server passed to Codex and not answered yet, by id. */
  private readonly serverRequests = new Map<Id, string>();
  private closed = false;
  /**
   * A leased route's state: `idle` while the lease answers the handshake, `starting` while the
   * server starts on first use (Codex's messages are held meanwhile), `off` otherwise.
   */
  private lease: 'idle' | 'starting' | 'off';
  /** A leased server between its start and the end of its handshake. */
  private handshaking: Upstream | undefined;
  /** Codex's messages held while a leased server starts, as received. */
  private held: unknown[] = [];
  /** The params of Codex's `initialize`, repeated to a leased server when it starts. */
  private clientInit: unknown;
  /** Whether the server answered its `initialize` (a failure before that is a start failure). */
  private initialized = false;
  private closing: Promise<void> | undefined;
  private reported = false;
  /** Calls held for a person's answer, where the route's calls are asked about here. */
  private readonly approvals: HeldCalls | undefined;
  /** Calls sent on and timed here (`timeCall`), by request id. */
  private readonly callTimers = new Map<Id, NodeJS.Timeout>();

  constructor(
    private readonly channel: CodexChannel,
    private readonly route: Route,
    private readonly shared: RelayShared,
    /** The route's server, when the gateway started it ahead of the relay. */
    private readonly prestarted?: Promise<Upstream>,
  ) {
    channel.onClose(() => {
      void this.close();
    });
    const asker = shared.asker;
    this.approvals =
      route.approvals === undefined || asker === undefined
        ? undefined
        : new HeldCalls(route.approvals, asker, {
            toCodex: (message) => {
              if (!this.closed) this.write(message);
            },
            release: (id, out) => {
              if (!this.closed) this.releaseApproved(id, out);
            },
            refuse: (id, text, reason) => {
              if (!this.closed) this.refuse(id, true, { text, outcome: 'denied', code: reason });
              this.finishCall(id, 'denied', reason);
            },
          });
    this.lease = route.lease !== undefined && prestarted === undefined ? 'idle' : 'off';
    if (this.lease === 'off') void this.start();
  }

  private async start(): Promise<void> {
    const upstream = await this.launch();
    if (upstream !== undefined) this.attach(upstream);
  }

  /** Starts the route's server; undefined (the failure told and answered) when it cannot. */
  private async launch(): Promise<Upstream | undefined> {
    let upstream: Upstream;
    try {
      upstream = await (this.prestarted ?? this.shared.start(this.route));
    } catch (error) {
      this.tellFailure('start', describeError(error), '');
      this.fail(`server '${this.route.server}' could not start: ${describeError(error)}`);
      return undefined;
    }
    if (this.closed) {
      await this.stopUpstream(upstream);
      return undefined;
    }
    if (!upstream.alive()) {
      const why = upstream.describeExit();
      await this.stopUpstream(upstream);
      this.tellFailure('start', why, upstream.stderrText());
      this.fail(
        `server '${this.route.server}' ended before it was used: ${why}${stderrTail(upstream)}`,
      );
      return undefined;
    }
    if (upstream.pid !== undefined) this.shared.serverGroup(upstream.pid, true);
    return upstream;
  }

  /** Passes messages between Codex and the started server from now on. */
  private attach(upstream: Upstream): void {
    this.upstream = upstream;
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

  private matcherFor:
    { base: CredentialMatcher; withServer: boolean; own: CredentialMatcher } | undefined;

  /** The session's matcher, with the server's own credential values added once it started. */
  private matcher(): CredentialMatcher {
    const base = this.shared.matcher();
    const withServer = this.upstream !== undefined && this.upstream.secrets.length > 0;
    const cached = this.matcherFor;
    if (cached?.base === base && cached.withServer === withServer) return cached.own;
    const own = withServer ? credentialMatcher(this.secrets()) : base;
    this.matcherFor = { base, withServer, own };
    return own;
  }

  /** A name from a message as a record or answer may hold it. */
  private clean(text: string): string {
    return safeText(text, this.matcher(), this.secrets());
  }

  private write(message: JSONRPCMessage): void {
    this.channel.send(message);
  }

  /** Tells the gateway, once, that the server failed; every text masked. */
  private tellFailure(stage: ServerFailure['stage'], reason: string, stderr: string): void {
    // a server that goes away while the session ends is being stopped, not failing
    if (this.reported || this.closed || this.shared.stopping()) return;
    this.reported = true;
    const definition = this.route.definition;
    this.shared.failed({
      process: this.route.process,
      role: this.route.role,
      server: this.route.server,
      stage,
      ...(definition.transport === 'streamable_http' ? { url: this.mask(definition.url) } : {}),
      reason: this.mask(reason),
      stderr: stderrLines(this.mask(stderr)),
    });
  }

  /** The server could not start or is gone: requests get an error, then the relay ends. */
  private fail(reason: string): void {
    this.failure = this.mask(reason);
    // what a leased route held goes the normal way now: each request gets the failure
    this.lease = 'off';
    const held = this.held;
    this.held = [];
    for (const value of held) this.fromCodex(value);
    for (const message of this.queue) this.answerFailed(message);
    this.queue = [];
    this.channel.end();
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

  /** A message from Codex (through the relay): forwarded only when a rule admits it. */
  fromCodex(value: unknown): void {
    if (this.closed) return;
    if (this.lease !== 'off' && this.failure === undefined) {
      this.fromCodexLeased(value);
      return;
    }
    const message = readClientMessage(value);
    if (message.kind === 'request' && this.approvals?.holds(message.id) === true) {
      // an id still waiting for its approval is not taken twice
      this.write(rpcRefusal(message.id, 'a request with this id is waiting for approval'));
      return;
    }
    const admitted = this.admit(message);
    const out = admitted ? rebuild(message) : undefined;
    if (out === undefined) return;
    const call = message.kind === 'request' ? this.calls.get(message.id) : undefined;
    const held = message.kind === 'request' && message.method === 'tools/call';
    if (held && call !== undefined && this.approvals?.asks(call.tool) === true) {
      this.approvals.hold(message.id, out, {
        process: this.route.process,
        role: call.role ?? this.route.role,
        kind: 'mcp_tool_call',
        ...(call.caller.thread !== null ? { thread: call.caller.thread } : {}),
        server: this.route.server,
        tool: call.tool,
        arguments: shownArguments(call.args),
      });
      return;
    }
    this.forward(out);
  }

  /**
   * Where Codex's own time for a call was lengthened by the approval wait (`RouteApprovals`), the
   * call is timed here by the server's own `tool_timeout_sec`: one not answered by then is answered
   * as an error, cancelled at the server and recorded.
   */
  private timeCall(out: JSONRPCMessage): void {
    const limitSec = this.route.approvals?.toolTimeoutSec;
    const m = out as Record<string, unknown>;
    const id = idOf(m);
    if (limitSec === undefined || id === undefined || m.method !== 'tools/call') return;
    const timer = setTimeout(() => {
      this.callTimers.delete(id);
      if (this.closed || !this.calls.has(id)) return;
      this.write({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32001,
          message: `codex-mmo: server '${this.route.server}' did not answer the call within its tool_timeout_sec (${String(limitSec)} s)`,
        },
      });
      void this.upstream?.transport
        .send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'timed out' },
        })
        .catch(() => undefined);
      this.finishCall(id, 'error', 'rpc-error');
    }, limitSec * 1000);
    timer.unref();
    this.callTimers.set(id, timer);
  }

  /**
   * An approved call goes on, checked again as it is now: a tool that drifted, a grant gone or a
   * session ending since it was held refuses it all the same.
   */
  private releaseApproved(id: Id, out: JSONRPCMessage): void {
    const params = (out as { params?: unknown }).params;
    const { decision } = this.decide('tools/call', params);
    if (decision.decline !== undefined) {
      this.refuse(id, true, decision.decline);
      this.finishCall(id, decision.decline.outcome, decision.decline.code);
      return;
    }
    this.forward(out);
  }

  /** Sends an admitted message of Codex on: to the server, or held until it has started. */
  private forward(out: JSONRPCMessage): void {
    if (this.failure !== undefined) {
      this.answerFailed(out);
      return;
    }
    // timed only once it goes to the server (or waits for its start): a failure is answered now
    this.timeCall(out);
    if (this.upstream === undefined) {
      this.queue.push(out);
      return;
    }
    this.toServer(out);
  }

  /**
   * A message while the route is leased: the handshake is answered from the lease; anything
   * else is held, and a request starts the server.
   */
  private fromCodexLeased(value: unknown): void {
    const lease = this.route.lease;
    const message = readClientMessage(value);
    const local =
      this.lease === 'idle' &&
      lease !== undefined &&
      ((message.kind === 'request' && LEASE_ANSWERS.has(message.method)) ||
        (message.kind === 'notification' && message.method === 'notifications/initialized'));
    if (!local) {
      // what no rule admits is refused (and recorded) now: it is not held, and starts no server
      if (this.refuses(message)) {
        this.admit(message);
        return;
      }
      this.held.push(value);
      if (this.lease === 'idle' && message.kind === 'request') void this.startLeased();
      return;
    }
    if (!this.admit(message) || message.kind !== 'request') return;
    this.inits.delete(message.id);
    this.lists.delete(message.id);
    let result: Record<string, unknown> = {};
    if (message.method === 'initialize') {
      this.clientInit = message.params;
      result = leaseInitializeResult(lease, message.params);
    } else if (message.method === 'tools/list') {
      const filtered = filterToolList({ tools: lease.tools }, this.route.gate);
      if (filtered.drifted.length > 0) this.shared.drifted(this.route, filtered.drifted);
      result = filtered.result;
      this.approvals?.listed(result);
    }
    this.write({ jsonrpc: '2.0', id: message.id, result });
  }

  /**
   * Starts a leased server on first use: its handshake repeats Codex's, its live tools are
   * checked against the pins (drifted ones are withheld), then the held messages go on.
   */
  private async startLeased(): Promise<void> {
    this.lease = 'starting';
    const upstream = await this.launch();
    if (upstream === undefined) return;
    this.handshaking = upstream;
    const started = await leaseHandshake(
      upstream,
      this.clientInit ?? { protocolVersion: this.route.lease?.protocol_version, capabilities: {} },
      (this.route.definition.startup_timeout_sec ?? DEFAULT_STARTUP_TIMEOUT_SEC) * 1000,
    );
    this.handshaking = undefined;
    if (this.closed) return;
    if (!started.ok) {
      this.tellFailure('start', started.reason, upstream.stderrText());
      await this.stopUpstream(upstream);
      this.fail(
        `server '${this.route.server}' could not start: ${started.reason}${stderrTail(upstream)}`,
      );
      return;
    }
    this.initialized = true;
    // Codex keeps the lease's (pinned) answer; a live one that differs is drift all the same
    const drifted = [
      ...pinInitialize(started.initialize, this.route.gate).drifted,
      ...filterToolList({ tools: started.tools }, this.route.gate).drifted,
    ];
    if (drifted.length > 0) this.shared.drifted(this.route, drifted);
    this.attach(upstream);
    for (const message of started.early) this.fromServer(message);
    this.releaseHeld();
  }

  /** Sends the held messages on to the started server. */
  private releaseHeld(): void {
    this.lease = 'off';
    const held = this.held;
    this.held = [];
    for (const value of held) this.fromCodex(value);
  }

  /** Whether a message goes on to the server; one that does not is answered or dropped, and recorded. */
  private admit(message: ClientMessage): boolean {
    switch (message.kind) {
      case 'request':
        return this.admitRequest(message.id, message.method, message.params);
      case 'notification':
        return this.admitNotification(message.method, message.params);
      case 'response':
        return this.admitResponse(message);
      default:
        this.drop(message.method === '' ? 'invalid' : message.method, 'method-not-allowed');
        return false;
    }
  }

  /** The gate's decision on a request of Codex, as things stand (no side effect). */
  private decide(
    method: string,
    params: unknown,
  ): { decision: RequestDecision; caller: CallerThread; role: string | null } {
    const caller = callerThread(isObject(params) ? params._meta : undefined);
    const role = callerRole(this.route, caller);
    const decision = decideRequest({
      stopping: this.shared.stopping(),
      route: this.route,
      method,
      params,
      role,
      matcher: this.matcher(),
      isDrifted: (tool) => this.shared.isDrifted(this.route, tool),
      clean: (text) => this.clean(text),
    });
    return { decision, caller, role };
  }

  /**
   * Whether `admit` would refuse a message of Codex while its route is leased (no side effect):
   * a request the gate declines, a notification not forwarded or carrying a credential, and any
   * answer, since a server that has not started has asked nothing.
   */
  private refuses(message: ClientMessage): boolean {
    switch (message.kind) {
      case 'request':
        return this.decide(message.method, message.params).decision.decline !== undefined;
      case 'notification':
        return (
          !FORWARDED_NOTIFICATIONS.has(message.method) ||
          findCredentialIn(message.params, this.matcher()) !== undefined
        );
      default:
        return true;
    }
  }

  private admitRequest(id: Id, method: string, params: unknown): boolean {
    const { decision, caller, role } = this.decide(method, params);
    const isCall = method === 'tools/call';
    const shown = isObject(params) ? (isCall ? params.arguments : withoutMeta(params)) : params;
    const args = summarizeArguments(shown, this.matcher(), this.secrets());
    const pending: PendingCall = {
      method,
      tool: decision.tool,
      started: performance.now(),
      caller,
      role,
      args,
    };
    if (decision.decline !== undefined) {
      this.refuse(id, isCall, decision.decline);
      this.log(pending, decision.decline.outcome, decision.decline.code, 0);
      return false;
    }
    if (method === 'tools/list') this.lists.add(id);
    else if (method === 'initialize') {
      this.inits.add(id);
      this.clientInit = params;
    }
    if (recordsAdmitted(method)) this.calls.set(id, pending);
    return true;
  }

  private refuse(id: Id, isCall: boolean, decline: Decline): void {
    const text = this.mask(decline.text);
    this.write(isCall ? refusal(id, text) : rpcRefusal(id, text, decline.rpcCode ?? REFUSED_CODE));
  }

  private admitNotification(method: string, params: unknown): boolean {
    if (!FORWARDED_NOTIFICATIONS.has(method)) {
      this.drop(method, 'method-not-allowed');
      return false;
    }
    if (findCredentialIn(params, this.matcher()) !== undefined) {
      this.drop(method, 'credential-in-arguments');
      return false;
    }
    if (method === 'notifications/cancelled' && isObject(params)) {
      const target = params.requestId;
      if (typeof target === 'string' || typeof target === 'number') {
        this.approvals?.cancelled(target);
        this.finishCall(target, 'error', 'cancelled');
      }
    }
    return true;
  }

  /** Codex's answer to a request of the server: only to one the server made, and checked. */
  private admitResponse(message: Extract<ClientMessage, { kind: 'response' }>): boolean {
    // the person's answer to a held call's prompt is the gateway's, never the server's
    if (this.approvals?.answered(message.id, message) === true) return false;
    const method = this.serverRequests.get(message.id);
    if (method === undefined) {
      this.drop('response', 'unexpected-response');
      return false;
    }
    this.serverRequests.delete(message.id);
    const found = findCredentialIn(
      'error' in message ? message.error : message.result,
      this.matcher(),
    );
    if (found === undefined) return true;
    this.drop(method, 'credential-in-arguments');
    // the server still gets an answer, without what was in it
    void this.upstream?.transport
      .send(
        rpcRefusal(
          message.id,
          `codex-mmo refused this answer [credential-in-arguments]: it contains a credential of this session (${found})`,
        ),
      )
      .catch(() => undefined);
    return false;
  }

  /** Records a message that was not forwarded (nothing to answer). */
  private drop(method: string, code: CallReason): void {
    this.log(
      {
        method,
        tool: '',
        started: performance.now(),
        caller: NO_CALLER,
        role: callerRole(this.route, NO_CALLER),
        args: summarizeArguments(undefined, this.matcher(), this.secrets()),
      },
      'blocked',
      code,
      0,
    );
  }

  private toServer(message: JSONRPCMessage): void {
    const upstream = this.upstream;
    if (upstream === undefined) return;
    upstream.transport.send(message).catch(async (error: unknown) => {
      const m = message as Record<string, unknown>;
      const id = idOf(m);
      if (id === undefined || typeof m.method !== 'string') return;
      // a stdio server that ends as it starts broke the pipe: its exit and stderr say why, and
      // the connection answers its handshake with them once it sees the server gone
      if (!this.initialized && upstream.stdio !== undefined && (await endsSoon(upstream))) return;
      this.finishCall(id, 'error', 'rpc-error');
      // a request that fails later is that request's error, not the server's failure
      if (!this.initialized) this.tellFailure('start', withCause(error), '');
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

  private log(
    call: PendingCall,
    outcome: CallOutcome,
    reason: CallReason | undefined,
    durationMs: number,
    masked?: AnswerMask,
  ): void {
    const clean = (text: string | null): string | null => (text === null ? null : this.clean(text));
    this.shared.record({
      time: new Date().toISOString(),
      process: this.route.process,
      role: call.role,
      thread: clean(call.caller.thread),
      parent_thread: clean(call.caller.parent_thread),
      server: this.route.server,
      tool: this.clean(call.tool),
      method: this.clean(call.method),
      outcome,
      ...(reason !== undefined ? { reason } : {}),
      ...(masked !== undefined ? { masked } : {}),
      duration_ms: Math.round(durationMs * 1000) / 1000,
      arguments: call.args,
    });
  }

  private finishCall(id: Id, outcome: CallOutcome, reason?: CallReason, masked?: AnswerMask): void {
    const timer = this.callTimers.get(id);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.callTimers.delete(id);
    }
    const call = this.calls.get(id);
    if (call === undefined) return;
    this.calls.delete(id);
    this.log(call, outcome, reason, performance.now() - call.started, masked);
  }

  /** A message from the server, on its way to Codex. */
  private fromServer(message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    const id = idOf(m);
    const secrets = this.secrets();
    const out: Record<string, unknown> = { ...m };
    let masked: AnswerMask | undefined;
    for (const key of ['result', 'params', 'error'] as const) {
      if (!(key in out)) continue;
      const answer = maskAnswer(out[key], this.matcher(), secrets);
      out[key] = answer.value;
      if (answer.mask !== undefined && MASK_RANK[answer.mask] > MASK_RANK[masked ?? 'none']) {
        masked = answer.mask;
      }
    }
    if (masked === 'answer-withheld' && this.withhold(out, id)) return;
    if (id !== undefined && typeof m.method === 'string') {
      if (!SERVER_REQUESTS.has(m.method)) {
        // a request of the server without a rule is answered here; Codex never sees it
        this.drop(m.method, 'method-not-allowed');
        void this.upstream?.transport
          .send(
            rpcRefusal(
              id,
              `codex-mmo does not pass '${this.clean(m.method)}' requests to Codex`,
              METHOD_NOT_FOUND,
            ),
          )
          .catch(() => undefined);
        return;
      }
      this.serverRequests.set(id, m.method);
    } else if (id !== undefined) {
      if (this.inits.delete(id) && isObject(out.result)) {
        this.initialized = true;
        // a pinned server's instructions and serverInfo reach Codex only as pinned
        const pinned = pinInitialize(out.result, this.route.gate);
        out.result = pinned.result;
        if (pinned.drifted.length > 0) this.shared.drifted(this.route, pinned.drifted);
        const version = pinned.result.protocolVersion;
        if (typeof version === 'string') this.upstream?.transport.setProtocolVersion?.(version);
      } else if (this.lists.delete(id) && 'result' in out) {
        const filtered = filterToolList(out.result, this.route.gate);
        out.result = filtered.result;
        this.approvals?.listed(filtered.result);
        if (filtered.drifted.length > 0) this.shared.drifted(this.route, filtered.drifted);
      } else if (isInputRequired(out.result)) {
        const asked = unrelayedInput(out.result);
        if (asked !== undefined) {
          // a question of a kind the gateway never passes to Codex (as a server's own request)
          delete out.result;
          out.error = {
            code: REFUSED_CODE,
            message: `codex-mmo refused this answer [input-required]: the server asked for '${this.clean(asked)}', which codex-mmo does not pass to Codex`,
          };
          this.finishCall(id, 'error', 'input-required', masked);
        } else if (speaksPerRequest(this.clientInit)) {
          // a 2026 client retries the same request with its answers, checked again then
          this.finishCall(id, 'ok', 'input-required', masked);
        } else {
          // a 2026 multi round-trip cannot be answered through a 2025 session: refused, an error
          delete out.result;
          out.error = { code: REFUSED_CODE, message: INPUT_REQUIRED_REFUSAL };
          this.finishCall(id, 'error', 'input-required', masked);
        }
      } else if (this.calls.has(id)) {
        const failed = 'error' in out || (isObject(out.result) && out.result.isError === true);
        this.finishCall(
          id,
          failed ? 'error' : 'ok',
          failed ? ('error' in out ? 'rpc-error' : 'tool-error') : undefined,
          masked,
        );
      }
    }
    this.write(out as JSONRPCMessage);
  }

  /**
   * Withholds a message of the server that still held a credential value after masking: an answer
   * becomes a JSON-RPC error (false: it goes on, as `out`); a notification is dropped and a request
   * of the server refused (true: nothing goes on), each recorded.
   */
  private withhold(out: Record<string, unknown>, id: Id | undefined): boolean {
    const method = typeof out.method === 'string' ? out.method : undefined;
    if (method === undefined) {
      delete out.result;
      out.error = {
        code: REFUSED_CODE,
        message:
          'codex-mmo withheld this answer [answer-withheld]: it holds a credential of this session',
      };
      return false;
    }
    this.drop(method, 'answer-withheld');
    if (id !== undefined) {
      void this.upstream?.transport
        .send(
          rpcRefusal(
            id,
            'codex-mmo withheld this request [answer-withheld]: it holds a credential of this session',
          ),
        )
        .catch(() => undefined);
    }
    return true;
  }

  private serverGone(): void {
    if (this.closed) return;
    const upstream = this.upstream;
    const why = upstream?.describeExit() ?? 'it is gone';
    this.tellFailure(this.initialized ? 'ended' : 'start', why, upstream?.stderrText() ?? '');
    const reason = `server '${this.route.server}' ended: ${why}${upstream !== undefined ? stderrTail(upstream) : ''}`;
    this.failure = this.mask(reason);
    // a handshake or a call in flight is answered with the server's own last words, so Codex
    // does not wait out its timeout for an answer that cannot come
    const error = { code: -32000, message: this.failure };
    for (const id of [...this.inits, ...this.calls.keys()]) {
      this.write({ jsonrpc: '2.0', id, error });
    }
    for (const id of [...this.calls.keys()]) this.finishCall(id, 'error', 'server-gone');
    this.inits.clear();
    this.channel.end();
  }

  /** Ends the connection and stops its server; every caller waits for the same stop. */
  close(): Promise<void> {
    this.closing ??= this.end();
    return this.closing;
  }

  private async end(): Promise<void> {
    this.closed = true;
    this.approvals?.close();
    for (const timer of this.callTimers.values()) clearTimeout(timer);
    this.callTimers.clear();
    const why = this.shared.stopping() ? 'session-ended' : 'server-gone';
    for (const id of [...this.calls.keys()]) this.finishCall(id, 'error', why);
    this.channel.destroy();
    const upstream = this.upstream ?? this.handshaking;
    if (upstream === undefined) return;
    await this.stopUpstream(upstream);
    const stderr = upstream.stderrText();
    if (stderr !== '') this.shared.stderr(this.route, maskSecrets(stderr, this.secrets()));
  }

  private async stopUpstream(upstream: Upstream): Promise<void> {
    await upstream.stop();
    if (upstream.pid !== undefined) this.shared.serverGroup(upstream.pid, false);
  }
}

/** Whether the server's process ends within a second. */
async function endsSoon(upstream: Upstream): Promise<boolean> {
  for (let waited = 0; waited < 1000 && upstream.alive(); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !upstream.alive();
}

/** The text of a refused `input_required` answer, naming both revisions. */
export const INPUT_REQUIRED_REFUSAL =
  "codex-mmo refused this answer [input-required]: the server asked for more input (MCP 2026-07-28 'input_required'), which a client of this connection (MCP 2025-11-25, an initialize session) cannot answer";

/** Whether a result is a 2026 `input_required` (multi round-trip) answer. */
function isInputRequired(result: unknown): boolean {
  return isObject(result) && result.resultType === 'input_required';
}

/** The first method an `input_required` answer asks for that no rule passes to Codex, if any. */
function unrelayedInput(result: unknown): string | undefined {
  const requests = isObject(result) && isObject(result.inputRequests) ? result.inputRequests : {};
  for (const request of Object.values(requests)) {
    const method = isObject(request) ? request.method : undefined;
    if (typeof method !== 'string' || method === 'ping' || !SERVER_REQUESTS.has(method)) {
      return typeof method === 'string' ? method : '(no method)';
    }
  }
  return undefined;
}

/** Whether the client opened in a per-request revision (the gateway for a 2026 client). */
function speaksPerRequest(init: unknown): boolean {
  const version = isObject(init) ? init.protocolVersion : undefined;
  return typeof version === 'string' && handshakeOf(version) === 'discover';
}

/** A request's params without `_meta` (what Codex adds), as recorded. */
function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).filter(([key]) => key !== '_meta'));
}
