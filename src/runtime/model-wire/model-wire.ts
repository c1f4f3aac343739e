/**
 * The model wire of a session: a local Responses API proxy (127.0.0.1) between every Codex
 * process of the session and the provider the operator configured. Each process reaches it
 * under its own unguessable path, each request carrying the process's token (a header whose value
 * lives only in the process's environment, never forwarded); the first request of each thread attributes the thread to a
 * role (thread-roles), and every request's `tools` is narrowed to that role's grants — its MCP
 * servers and tools, `mmo_mesh` described for its own lists, `spawn_agent` offering only its own
 * native roles — before it is forwarded; a sub-agent its parent role may not start is refused. Headers, credentials and the response stream pass through unchanged and are never
 * logged or stored; only attributions and removals are recorded. A tool call turned away after
 * asking has Codex's bare rejection replaced by codex-mmo's refusal in the thread's later requests. A connection that sends no
 * request with a process's token in time, or past the cap of those waiting, is closed.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { promisify } from 'node:util';
import {
  brotliDecompress,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  gunzip,
  inflate,
} from 'node:zlib';
import type { Transform } from 'node:stream';

import { parse, stringify } from 'smol-toml';

import {
  MCP_NAMESPACE_PREFIX,
  NEWEST_CODEX,
  serverOfFlatName,
  serverOfNamespace,
  type CodexVersionFacts,
} from '../../config/codex/codex-versions.js';
import type { RenderedHome } from '../../config/compile/types.js';
import type { ProfileData, ResolvedPlan } from '../../config/profile/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import {
  ConnectionLimits,
  httpTimeouts,
  type ConnectionLimitOptions,
} from '../../foundation/process/connection-limits.js';
import { allowed } from './filter-tools.js';
import {
  pointAtWire,
  providerRoute,
  upstreamOf,
  WIRE_TOKEN_ENV,
  WIRE_TOKEN_HEADER,
  type ProviderRoute,
} from '../../config/compile/provider-route.js';
import { wireProcess, type WireProcess } from '../../config/compile/role-grants.js';
import { AppendQueue } from '../../foundation/append-queue.js';
import { ThreadRoles } from './thread-roles.js';
import { narrowRequest } from './narrow-request.js';
import { defersTools, searchedTools } from './tool-search.js';
import { denialKey, explainDenials, type PendingDenial } from './denial-texts.js';
import type { DeniedCall } from '../protocol/approval-types.js';
import { additionalTools, callableNames, splitName, unofferedCalls } from './unoffered-calls.js';
import {
  callFilter,
  NOT_GRANTED,
  RefusingStream,
  type CallFilter,
  type TurnedAway,
} from './refuse-calls.js';
import { wireIdentity, type WireIdentity } from './wire-request.js';

/** One line of `<session>/logs/model-wire.jsonl`. */
export interface WireRecord {
  readonly time: string;
  readonly process: string;
  readonly thread: string | null;
  readonly parent_thread?: string;
  /** The attributed role; null for a request that could not be attributed (fail closed). */
  readonly role: string | null;
  readonly event: 'thread' | 'unattributed' | 'refused' | 'websocket-refused';
  readonly reason?: string;
  /** Tools removed from the request (`server` or `server.tool`). */
  readonly removed?: readonly string[];
  /** What the request kept (server → model tool names). */
  readonly offered?: Readonly<Record<string, readonly string[]>>;
  /** Roles of the process removed from the request's `spawn_agent` agent types. */
  readonly agent_types_removed?: readonly string[];
  /** Codex's generic resource functions removed from the request. */
  readonly functions_removed?: readonly string[];
}

export interface ModelWireOptions {
  readonly profile: ProfileData;
  readonly plan: ResolvedPlan;
  /** The base Codex settings the session renders with (they name the provider). */
  readonly base: TomlTable;
  /** Where records are appended (JSON lines), if anywhere. */
  readonly logFile?: string;
  /** Called once for each call a model made to a tool its Codex process did not offer it. */
  readonly onUnofferedCall?: (call: UnofferedCallOf) => void;
  /** Limits on connections that have not yet sent a request with a process's token. */
  readonly limits?: ConnectionLimitOptions;
  /**
   * The Codex version the processes run (default: the newest supported): how it names each
   * server's namespace, which the wire reads back to servers.
   */
  readonly codex?: CodexVersionFacts;
}

/** The wire's name in a flood report. */
export const MODEL_WIRE_LISTENER = 'model-wire';

/** A call to a tool the thread's Codex process does not have: Codex refused it itself. */
export interface UnofferedCallOf {
  readonly process: string;
  readonly role: string | null;
  readonly thread: string | null;
  readonly parentThread: string | null;
  readonly server: string;
  readonly tool: string;
  /**
   * Why it was refused: absent for a tool the process does not have (Codex answered it);
   * `tool-not-granted-to-role` for one the process has but the thread's role was not offered
   * (the wire turned it away before Codex saw it).
   */
  readonly reason?: typeof NOT_GRANTED;
}

interface RegisteredProcess {
  readonly id: string;
  readonly wire: WireProcess;
  /** The value of its requests' `WIRE_TOKEN_HEADER`. */
  readonly token: Buffer;
}

/** A rendered home pointed at the wire, and what its process's environment gains with it. */
export interface WiredHome {
  readonly home: RenderedHome;
  readonly env: Readonly<Record<string, string>>;
}

/** Whether a request carries `token` in its wire header (compared in constant time). */
function carries(headers: IncomingHttpHeaders, token: Buffer): boolean {
  const value = headers[WIRE_TOKEN_HEADER];
  if (typeof value !== 'string') return false;
  const given = Buffer.from(value);
  return given.length === token.length && timingSafeEqual(given, token);
}

/** Who a thread is, for the gateway and `session calls`. */
export interface ThreadRole {
  readonly process: string;
  readonly role: string | null;
  readonly parentThread?: string;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** Streams that decode a compressed answer the wire must read (the provider may compress anyway). */
const STREAM_DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};

const decoders: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function forwardHeaders(
  headers: IncomingHttpHeaders,
  drop: readonly string[],
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `codex-mmo model wire: ${message}` } }));
}

/** Denials kept per thread for explaining (the oldest is dropped past it). */
const MAX_DENIALS_PER_THREAD = 256;
/** The longest refusal text kept for a denial (a person's reason can be long). */
const MAX_DENIAL_TEXT = 2000;

export class ModelWire {
  /** How the provider is fronted, or why it cannot be. */
  readonly route: ProviderRoute;
  /** Every record so far, in order. */
  readonly records: WireRecord[] = [];
  private readonly threads = new ThreadRoles();
  /** Call ids each thread's requests have carried so far. */
  private readonly calls = new Map<string, Set<string>>();
  /** Calls turned away after asking, by process and thread: explained in later requests. */
  private readonly denials = new Map<
    string,
    { bound: Map<string, string>; pending: PendingDenial[] }
  >();
  private readonly processes = new Map<string, RegisteredProcess>();
  private readonly httpAgent = new HttpAgent({ keepAlive: true });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true });
  private readonly log: AppendQueue | undefined;

  private constructor(
    private readonly options: ModelWireOptions,
    private readonly server: Server | undefined,
    private readonly origin: string,
    private readonly limits = new ConnectionLimits(MODEL_WIRE_LISTENER, options.limits),
  ) {
    this.route = providerRoute(options.base);
    this.log = options.logFile !== undefined ? new AppendQueue(options.logFile) : undefined;
  }

  /**
   * Starts the wire for a session. For a provider it cannot front no server is started:
   * `enforcing` is false and `home` leaves rendered homes unchanged.
   */
  static async start(options: ModelWireOptions): Promise<ModelWire> {
    if (providerRoute(options.base).kind === 'unfrontable')
      return new ModelWire(options, undefined, '');
    const limits = new ConnectionLimits(MODEL_WIRE_LISTENER, options.limits);
    const server = createServer(httpTimeouts(limits));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const wire = new ModelWire(options, server, `http://127.0.0.1:${port}`, limits);
    server.on('connection', (socket: Socket) => {
      limits.admit(socket);
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      wire.handle(req, res).catch((error: unknown) => {
        sendError(res, 502, error instanceof Error ? error.message : String(error));
      });
    });
    server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      const key = (req.url ?? '').split('/')[2] ?? '';
      const named = wire.processes.get(key);
      const process = named !== undefined && carries(req.headers, named.token) ? named : undefined;
      wire.record({
        process: process?.id ?? '?',
        thread: null,
        role: null,
        event: 'websocket-refused',
        reason: 'the model wire speaks HTTP only',
      });
      socket.end('HTTP/1.1 426 Upgrade Required\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    });
    return wire;
  }

  /** True when requests go through the wire and are narrowed per role. */
  get enforcing(): boolean {
    return this.server !== undefined;
  }

  /**
   * Registers one Codex process (`processId`: `root` or a participant id) rooted at the rendered
   * home's role and returns the home pointed at the wire, with the token variable its requests
   * must carry. Unchanged when not enforcing. The path names the process; the token, which
   * never reaches a file, proves a request comes from it.
   */
  home(rendered: RenderedHome, processId: string): WiredHome {
    if (!this.enforcing) return { home: rendered, env: {} };
    const wire = wireProcess(this.options.profile, this.options.plan, rendered.process);
    if (wire === undefined) return { home: rendered, env: {} };
    const key = randomBytes(16).toString('hex');
    const token = randomBytes(32).toString('hex');
    this.processes.set(key, { id: processId, wire, token: Buffer.from(token) });
    const files = new Map(rendered.files);
    const config = files.get('config.toml');
    if (config !== undefined) {
      const table = pointAtWire(parse(config), this.route, `${this.origin}/p/${key}`);
      files.set('config.toml', stringify(table));
    }
    return { home: { process: rendered.process, files }, env: { [WIRE_TOKEN_ENV]: token } };
  }

  /**
   * A tool call of `thread` in `process` that was asked about and turned away: the thread's later
   * requests give the model `denial.text` for it instead of Codex's bare rejection.
   */
  explainDenial(process: string, thread: string, denial: DeniedCall): void {
    if (!this.enforcing) return;
    const key = `${process}\u0000${thread}`;
    const state = this.denials.get(key) ?? { bound: new Map<string, string>(), pending: [] };
    state.pending.push({
      key: denialKey(denial.server, denial.tool, denial.params),
      text: denial.text.slice(0, MAX_DENIAL_TEXT),
    });
    // one per question a person was asked, each tied at the thread's next request: bounded all the same
    if (state.pending.length > MAX_DENIALS_PER_THREAD) state.pending.shift();
    this.denials.set(key, state);
  }

  /** The thread's request input with denied calls explained; ties what it can to its call. */
  private explained(
    process: RegisteredProcess,
    thread: string | undefined,
    input: unknown,
  ): unknown {
    const state =
      thread === undefined ? undefined : this.denials.get(`${process.id}\u0000${thread}`);
    if (state === undefined) return input;
    const out = explainDenials(input, state, (namespace, name) =>
      this.serverTool(process, namespace, name),
    );
    state.pending = state.pending.filter((_, at) => !out.used.has(at));
    for (const [callId, text] of out.bound) {
      state.bound.set(callId, text);
      if (state.bound.size > MAX_DENIALS_PER_THREAD) {
        const oldest = state.bound.keys().next().value;
        if (oldest !== undefined) state.bound.delete(oldest);
      }
    }
    return out.input;
  }

  /** The role of a thread the wire has seen (null: seen but unattributed); undefined if unseen. */
  roleOfThread(threadId: string): ThreadRole | undefined {
    const entry = this.threads.entry(threadId);
    if (entry === undefined) return undefined;
    return {
      process: entry.process,
      role: entry.role,
      ...(entry.parentThread !== undefined ? { parentThread: entry.parentThread } : {}),
    };
  }

  async close(): Promise<void> {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    if (this.server !== undefined) {
      const server = this.server;
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      });
    }
    await this.log?.flushed();
  }

  private record(fields: Omit<WireRecord, 'time'>): void {
    const record: WireRecord = { time: new Date().toISOString(), ...fields };
    this.records.push(record);
    this.log?.append(`${JSON.stringify(record)}\n`);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const match = /^\/p\/([0-9a-f]{32})(\/.*)?$/.exec(url);
    const named = match?.[1] !== undefined ? this.processes.get(match[1]) : undefined;
    const process = named !== undefined && carries(req.headers, named.token) ? named : undefined;
    if (process === undefined) {
      sendError(res, 404, 'unknown process');
      return;
    }
    // a Codex process's own connection: kept as long as it keeps it, its answers never timed
    this.limits.authenticated(req.socket);
    const upstreamBase = upstreamOf(this.route, req.headers);
    if (upstreamBase === undefined) {
      sendError(res, 502, 'no upstream');
      return;
    }
    const rest = match?.[2] ?? '';
    const target = new URL(upstreamBase.replace(/\/+$/, '') + rest);
    const path = rest.split('?')[0] ?? '';
    if (req.method !== 'POST' || !path.endsWith('/responses')) {
      // everything else (model lists, …) passes through as it is, streamed both ways
      this.forward(req, res, target, undefined);
      return;
    }
    const raw = await readAll(req);
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    let body: Record<string, unknown>;
    try {
      const decode = Object.hasOwn(decoders, encoding) ? decoders[encoding] : undefined;
      if (encoding !== 'identity' && decode === undefined) {
        throw new Error(`a ${encoding}-compressed request cannot be read`);
      }
      const text = (decode === undefined ? raw : await decode(raw)).toString('utf8');
      const parsed: unknown = JSON.parse(text);
      if (!isRecord(parsed)) throw new Error('the request body is not a JSON object');
      body = parsed;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.record({ process: process.id, thread: null, role: null, event: 'refused', reason });
      sendError(res, 400, `refused: ${reason}`);
      return;
    }
    const identity = wireIdentity(req.headers, body);
    const { attribution, entry, first } = this.threads.resolve(process.id, process.wire, identity);
    const role = attribution.ok ? attribution.role : undefined;
    const tools: unknown[] = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
    // what the request offers: its tools, in code mode its `additional_tools` items, and the
    // deferred tools Codex found for an earlier tool search
    const searched = searchedTools(body.input);
    const known: unknown[] = [...tools, ...additionalTools(body.input), ...searched];
    this.noteUnoffered(process, identity, attribution.ok ? entry.role : null, body.input, known);
    const narrowed = narrowRequest(
      tools,
      body.input,
      role,
      process.wire,
      this.options.codex ?? NEWEST_CODEX,
    );
    const input = this.explained(process, identity.threadId, narrowed.input);
    const { offered, removed } = narrowed;
    const thread = identity.threadId ?? null;
    const parent =
      identity.parentThreadId !== undefined ? { parent_thread: identity.parentThreadId } : {};
    if (!attribution.ok && attribution.refused === true) {
      // a sub-agent its parent role may not start: none of its requests reaches the provider
      if (first) {
        this.record({
          process: process.id,
          thread,
          ...parent,
          role: null,
          event: 'refused',
          reason: attribution.reason,
        });
      }
      sendError(res, 403, `refused: ${attribution.reason}`);
      return;
    }
    if (!attribution.ok) {
      this.record({
        process: process.id,
        thread,
        ...parent,
        role: null,
        event: 'unattributed',
        reason: attribution.reason,
        removed,
      });
    } else if (first) {
      this.record({
        process: process.id,
        thread,
        ...parent,
        role: entry.role,
        event: 'thread',
        removed,
        offered: narrowed.kept,
        ...(narrowed.agentTypesRemoved.length > 0
          ? { agent_types_removed: narrowed.agentTypesRemoved }
          : {}),
        ...(narrowed.functionsRemoved.length > 0
          ? { functions_removed: narrowed.functionsRemoved }
          : {}),
      });
    }
    const out = Buffer.from(
      JSON.stringify({
        ...body,
        ...(Array.isArray(body.tools) ? { tools: offered } : {}),
        ...(input !== body.input ? { input } : {}),
      }),
      'utf8',
    );
    // a call to a tool the process has but the thread was not offered never reaches Codex as one
    const refusing = Array.isArray(body.tools)
      ? {
          filter: callFilter(
            [...tools, ...searched],
            [...offered, ...searchedTools(narrowed.input)],
            attribution.ok ? (entry.role ?? undefined) : undefined,
            // deferred tools are listed only once searched for: the grant decides
            defersTools(tools)
              ? (namespace, name) => {
                  const call = this.serverTool(process, namespace, name);
                  return call !== undefined && !allowed(role, call.server, call.tool);
                }
              : undefined,
          ),
          onRefused: (call: TurnedAway): void => {
            this.turnedAway(process, identity, attribution.ok ? entry.role : null, call);
          },
        }
      : undefined;
    this.forward(req, res, target, out, refusing);
  }

  /** Records a call the wire turned away, once (the next request's input repeats it). */
  private turnedAway(
    process: RegisteredProcess,
    identity: WireIdentity,
    role: string | null,
    call: TurnedAway,
  ): void {
    const thread = identity.threadId;
    if (thread !== undefined) {
      const seen = this.calls.get(thread) ?? new Set<string>();
      seen.add(call.callId);
      this.calls.set(thread, seen);
    }
    const target =
      this.serverTool(process, call.namespace, call.name) ?? splitName(call.namespace, call.name);
    this.reportCall(process, identity, role, target, NOT_GRANTED);
  }

  /** Reports each call of the input, seen for the first time, that Codex refused itself. */
  private noteUnoffered(
    process: RegisteredProcess,
    identity: WireIdentity,
    role: string | null,
    input: unknown,
    tools: readonly unknown[],
  ): void {
    const thread = identity.threadId;
    if (this.options.onUnofferedCall === undefined || thread === undefined) return;
    const seen = this.calls.get(thread) ?? new Set<string>();
    this.calls.set(thread, seen);
    for (const call of unofferedCalls(input, callableNames(tools), seen)) {
      this.reportCall(
        process,
        identity,
        role,
        this.serverTool(process, call.namespace, call.name) ?? call,
      );
    }
  }

  /** The server ID and tool a call of `process` names (undefined: none of its servers). */
  private serverTool(
    process: RegisteredProcess,
    namespace: string | undefined,
    name: string,
  ): { server: string; tool: string } | undefined {
    const codex = this.options.codex ?? NEWEST_CODEX;
    if (namespace === undefined) {
      // a flat name is read the way this Codex writes each server's tools (`a__b` stays whole)
      const flat = serverOfFlatName(codex, name, process.wire.servers);
      if (flat !== undefined) return { server: flat[0], tool: flat[1] };
    }
    const call = splitName(namespace, name);
    if (call.server === 'codex' || call.tool === '') return undefined;
    const server = serverOfNamespace(
      codex,
      `${MCP_NAMESPACE_PREFIX}${call.server}`,
      process.wire.servers,
    );
    return server === undefined ? undefined : { server, tool: call.tool };
  }

  /** One refused call for `onUnofferedCall`, its server named by its registry ID. */
  private reportCall(
    process: RegisteredProcess,
    identity: WireIdentity,
    role: string | null,
    call: { readonly server: string; readonly tool: string },
    reason?: typeof NOT_GRANTED,
  ): void {
    // the server ID when the name is one this Codex gives a server of the process
    const namespace = `${MCP_NAMESPACE_PREFIX}${call.server}`;
    const codex = this.options.codex ?? NEWEST_CODEX;
    this.options.onUnofferedCall?.({
      process: process.id,
      role,
      thread: identity.threadId ?? null,
      parentThread: identity.parentThreadId ?? null,
      server: serverOfNamespace(codex, namespace, process.wire.servers) ?? call.server,
      tool: call.tool,
      ...(reason !== undefined ? { reason } : {}),
    });
  }

  /**
   * Sends the request upstream (`body`, or the request stream) and pipes the answer back; with
   * `refusing`, an event stream passes through a RefusingStream (asked for uncompressed).
   */
  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: URL,
    body: Buffer | undefined,
    refusing?: { readonly filter: CallFilter; readonly onRefused: (call: TurnedAway) => void },
  ): void {
    const headers = forwardHeaders(
      req.headers,
      body !== undefined
        ? [
            WIRE_TOKEN_HEADER,
            'content-length',
            'content-encoding',
            ...(refusing !== undefined ? ['accept-encoding'] : []),
          ]
        : [WIRE_TOKEN_HEADER],
    );
    if (body !== undefined) headers['content-length'] = body.length;
    const secure = target.protocol === 'https:';
    const upstream = (secure ? httpsRequest : httpRequest)(target, {
      method: req.method ?? 'GET',
      headers,
      agent: secure ? this.httpsAgent : this.httpAgent,
    });
    upstream.setNoDelay(true);
    upstream.on('response', (answer) => {
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      const stream =
        refusing !== undefined &&
        (answer.headers['content-type'] ?? '').toLowerCase().includes('text/event-stream');
      const encoding = (answer.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
      const decode = Object.hasOwn(STREAM_DECODERS, encoding)
        ? STREAM_DECODERS[encoding]
        : undefined;
      if (stream && encoding !== 'identity' && decode === undefined) {
        // an answer the wire cannot read is not passed on unread
        answer.resume();
        sendError(res, 502, `refused: the provider's answer is ${encoding}-encoded`);
        return;
      }
      if (stream) {
        delete out['content-length'];
        delete out['content-encoding'];
      }
      res.writeHead(answer.statusCode ?? 502, out);
      res.flushHeaders();
      if (stream) {
        const plain = decode !== undefined ? answer.pipe(decode()) : answer;
        plain.on('error', () => res.destroy());
        plain.pipe(new RefusingStream(refusing.filter, refusing.onRefused)).pipe(res);
      } else answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      sendError(res, 502, `the provider could not be reached (${error.message})`);
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (body !== undefined) upstream.end(body);
    else req.pipe(upstream);
  }
}
