/**
 * The gateway's loopback Streamable HTTP front: Codex reaches each of its servers at
 * `http://127.0.0.1:PORT/mcp` with the route's bearer token, so no process runs per server. A
 * request is admitted only with a loopback Host and Origin, a known token, from the Codex process
 * its routes are bound to, and within an MCP session of the same route; every refusal is
 * reported. Each MCP session is one `HttpSessionTransport`, handed to the gateway to serve. A
 * connection that sends no request with a known token in time, or past the cap of those waiting,
 * is closed (connection-limits). A POST of the per-request revision (2026-07-28: no session, the
 * `_meta` envelope) is answered on its own: `server/discover` from the route's server's
 * `initialize` result, anything else through one gateway-opened session per route
 * (`PerRequestSession`), its headers first checked against its body.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

import {
  ConnectionLimits,
  httpTimeouts,
  type ConnectionLimitOptions,
} from '../../foundation/process/connection-limits.js';
import {
  TcpPeerFinder,
  type ProcessStamp,
  type TcpPeer,
} from '../../foundation/process/tcp-peer.js';
import type { RouteKey } from './gateway-credentials.js';
import { HttpSessionTransport, readJson } from './http-session.js';
import { requestRule } from './method-rules.js';
import {
  HEADER_MISMATCH,
  bodyId,
  discoverResult,
  isPerRequest,
  perRequestRefusal,
  perRequestStatus,
  rpcError,
} from './per-request.js';
import { PerRequestSession } from './per-request-session.js';
import { METHOD_NOT_FOUND, isObject } from './relay-messages.js';

/** The path every route is served at; the token says which route. */
export const MCP_PATH = '/mcp';

export type FrontRefusal =
  | 'bad-host'
  | 'bad-origin'
  | 'bad-path'
  | 'no-token'
  | 'wrong-process'
  | 'unknown-session'
  | 'session-gone'
  | 'not-initialize'
  | 'too-large'
  | 'session-ended'
  | 'header-mismatch';

export interface HttpFrontOptions {
  /** The route a bearer token opens, or undefined. */
  lookup(token: string): RouteKey | undefined;
  /** Whether a token belonged to a process that has ended. */
  ended(token: string): boolean;
  /** Whether `peer` may use the routes of `process` (the first peer binds them). */
  admitPeer(process: string, peer: ProcessStamp | undefined): boolean;
  /**
   * Where the holder of a connection for `process` is looked for first: the process bound to its
   * routes, if any, else the tree of the process the supervisor spawned for it.
   */
  boundPeer(process: string): { readonly pid?: number; readonly within?: number };
  /** Serves a new MCP session of `route` on `transport` (started); false: the session is ending. */
  open(route: RouteKey, transport: Transport): Promise<boolean>;
  /** Every refused request, with the route when the token named one. */
  refused(route: RouteKey | undefined, why: FrontRefusal): void;
  /** Limits on connections that have not yet sent a request with a known token. */
  readonly limits?: ConnectionLimitOptions;
}

/** The front's name in a flood report. */
export const HTTP_FRONT_LISTENER = 'gateway-http';

interface HttpSession {
  readonly key: string;
  readonly transport: HttpSessionTransport;
}

const STATUS: Record<FrontRefusal, number> = {
  'bad-host': 403,
  'bad-origin': 403,
  'bad-path': 404,
  'no-token': 401,
  'wrong-process': 403,
  'unknown-session': 404,
  'session-gone': 404,
  'not-initialize': 400,
  'too-large': 413,
  'session-ended': 503,
  'header-mismatch': 400,
};

function keyOf(route: RouteKey): string {
  return `${route.process}\u0000${route.server}`;
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer ([A-Za-z0-9_-]{16,128})$/.exec(header ?? '');
  return match?.[1];
}

function isInitialize(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    (body as Record<string, unknown>).method === 'initialize' &&
    'id' in body
  );
}

/** The only address the front listens on. */
const LOOPBACK = '127.0.0.1';

/** How many ended MCP session ids the front remembers, to tell a stale id from a forged one. */
const ENDED_SESSIONS_KEPT = 1024;

export class HttpFront {
  private readonly sessions = new Map<string, HttpSession>();
  /** Ids of sessions that ended (their server stopped or failed), by session id: their route key. */
  private readonly endedSessions = new Map<string, string>();
  /** Ids of sessions whose client asked to end them (DELETE), until they close. */
  private readonly clientEnded = new Set<string>();
  /** Each route's per-request clients, by route key. */
  private readonly perRequest = new Map<string, Promise<PerRequestSession | undefined>>();
  private readonly peers = new WeakMap<Socket, TcpPeer>();
  /** The look under way for a connection, shared by the requests it carries meanwhile. */
  private readonly looking = new WeakMap<Socket, Promise<TcpPeer>>();
  private finder: TcpPeerFinder | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly options: HttpFrontOptions,
    private readonly limits: ConnectionLimits,
  ) {}

  static async listen(options: HttpFrontOptions): Promise<HttpFront> {
    const limits = new ConnectionLimits(HTTP_FRONT_LISTENER, options.limits);
    const server = createServer(httpTimeouts(limits));
    const front = new HttpFront(server, options, limits);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      front.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
    server.on('connection', (socket: Socket) => {
      limits.admit(socket);
      front.sockets.add(socket);
      socket.on('close', () => front.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, LOOPBACK, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return front;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The URL every route is served at. */
  get url(): string {
    return `http://127.0.0.1:${String(this.port)}${MCP_PATH}`;
  }

  private refuse(
    res: ServerResponse,
    route: RouteKey | undefined,
    why: FrontRefusal,
    body?: unknown,
  ): void {
    this.options.refused(route, why);
    res
      .writeHead(STATUS[why], { 'content-type': 'application/json' })
      .end(
        JSON.stringify(
          rpcError(bodyId(body), -32000, `codex-mmo gateway refused this request [${why}]`),
        ),
      );
  }

  /**
   * The process at the other end of `socket`, from the kernel; `route`'s bound process is looked
   * at first. A DELETE is looked for once: Codex sends its last one as it exits, and a missed
   * live one only leaves its MCP session to end with the gateway.
   */
  private async peerOf(
    socket: Socket,
    route: RouteKey,
    method: string | undefined,
  ): Promise<TcpPeer> {
    const known = this.peers.get(socket);
    if (known?.kind === 'process') return known;
    // requests pipelined on one connection share its look
    let looking = this.looking.get(socket);
    if (looking === undefined) {
      looking = this.lookUp(socket, route, method).finally(() => this.looking.delete(socket));
      this.looking.set(socket, looking);
    }
    const peer = await looking;
    this.peers.set(socket, peer);
    return peer;
  }

  private async lookUp(
    socket: Socket,
    route: RouteKey,
    method: string | undefined,
  ): Promise<TcpPeer> {
    const port = socket.remotePort;
    const address = socket.remoteAddress;
    if (port === undefined || address === undefined) return { kind: 'gone' };
    this.finder ??= new TcpPeerFinder({ address: LOOPBACK, port: this.port });
    const bound = this.options.boundPeer(route.process);
    // a DELETE is gone as soon as its client closes its end (Codex's last ones, as it exits)
    let onEnd = (): void => undefined;
    const ended = new Promise<void>((resolve) => (onEnd = resolve));
    if (method === 'DELETE') socket.once('end', onEnd).once('close', onEnd);
    try {
      const peer = await this.finder.find(
        { address, port },
        {
          ...(bound.pid !== undefined ? { expect: [bound.pid] } : {}),
          ...(bound.within !== undefined ? { within: bound.within } : {}),
          // Codex's last DELETE comes as it exits: closed by the time it is looked for, nothing
          // is read; closed while it is looked for, it is gone at once
          ...(method === 'DELETE'
            ? { looks: 1, closed: () => socket.destroyed || socket.readableEnded, ended }
            : { closed: () => socket.destroyed }),
        },
      );
      // a connection cut meanwhile is nobody's: its ends may be another connection's by now
      return socket.destroyed ? { kind: 'gone' } : peer;
    } finally {
      socket.off('end', onEnd).off('close', onEnd);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const port = String(this.port);
    const loopback = [`127.0.0.1:${port}`, `localhost:${port}`];
    if (!loopback.includes(req.headers.host ?? '')) {
      this.refuse(res, undefined, 'bad-host');
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !loopback.map((h) => `http://${h}`).includes(origin)) {
      this.refuse(res, undefined, 'bad-origin');
      return;
    }
    if ((req.url ?? '').split('?')[0] !== MCP_PATH) {
      this.refuse(res, undefined, 'bad-path');
      return;
    }
    const token = bearer(req.headers.authorization);
    const route = token === undefined ? undefined : this.options.lookup(token);
    if (route === undefined) {
      // an ended process's last DELETE, sent as Codex exits: answered, without effect
      if (req.method === 'DELETE' && token !== undefined && this.options.ended(token)) {
        res.writeHead(404).end();
        return;
      }
      this.refuse(res, undefined, 'no-token');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    // a known token: not an idle connection while the kernel is asked who holds it (a flood of
    // idle ones must not close it meanwhile); one the check refuses is closed after its answer
    this.limits.authenticated(req.socket);
    const peer = await this.peerOf(req.socket, route, req.method);
    if (peer.kind === 'gone') {
      // its sender already closed the connection (Codex exiting: its last DELETE, or a request
      // cut off by a stop): nobody can read an answer, and nothing is done
      res.destroy();
      return;
    }
    const stamp = peer.kind === 'process' ? peer.process : undefined;
    if (!this.options.admitPeer(route.process, stamp)) {
      res.once('finish', () => req.socket.destroy());
      this.refuse(res, route, 'wrong-process');
      return;
    }
    // the connection of a route's own Codex process: kept as long as that process keeps it
    if (typeof sessionId === 'string') {
      if (session?.key !== keyOf(route)) {
        // a session of this route that ended (its server went away) is told apart from a forged id
        const gone = this.endedSessions.get(sessionId) === keyOf(route);
        this.refuse(res, route, gone ? 'session-gone' : 'unknown-session');
        return;
      }
      // a session its own client ends is not one whose server went away
      if (req.method === 'DELETE') this.clientEnded.add(sessionId);
      return session.transport.handle(req, res);
    }
    if (req.method !== 'POST') {
      this.refuse(res, route, 'unknown-session');
      return;
    }
    const body = await readJson(req);
    if (body === 'too-large') {
      this.refuse(res, route, 'too-large');
      return;
    }
    // a POST that names a per-request revision is one, `initialize` included (then not found)
    if (isPerRequest(req.headers, body)) return this.servePerRequest(req, res, route, body);
    if (isInitialize(body)) return this.openSession(req, res, route, body);
    this.refuse(res, route, 'not-initialize', body);
  }

  /** One POST of the per-request revision: checked, then answered through the route's session. */
  private async servePerRequest(
    req: IncomingMessage,
    res: ServerResponse,
    route: RouteKey,
    body: unknown,
  ): Promise<void> {
    const answer = (status: number, message: Record<string, unknown>): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(message));
    };
    const id = bodyId(body);
    const refused = perRequestRefusal(req.headers, body);
    if (refused !== undefined || !isObject(body)) {
      this.options.refused(route, 'header-mismatch');
      const error = rpcError(id, refused?.code ?? -32600, refused?.message ?? '', refused?.data);
      answer(perRequestStatus(error), error);
      return;
    }
    if (id === undefined) {
      // a notification (or an answer, which a per-request client never owes)
      if (typeof body.method === 'string') (await this.perRequestOf(route))?.notify(body);
      res.writeHead(202).end();
      return;
    }
    const session = await this.perRequestOf(route);
    if (session === undefined) {
      this.refuse(res, route, 'session-ended', body);
      return;
    }
    const mismatch = session.paramMismatch((name) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    }, body);
    if (mismatch !== undefined) {
      this.options.refused(route, 'header-mismatch');
      const error = rpcError(
        id,
        HEADER_MISMATCH,
        `codex-mmo gateway refused this request [header-mismatch]: ${mismatch}`,
      );
      answer(perRequestStatus(error), error);
      return;
    }
    const opened = await session.open(body);
    if (!isObject(opened.result)) {
      answer(perRequestStatus(opened), { ...opened, id });
      return;
    }
    if (body.method === 'server/discover') {
      const discovered =
        requestRule('server/discover') === 'refused'
          ? rpcError(id, METHOD_NOT_FOUND, 'server/discover is not answered')
          : { jsonrpc: '2.0', id, result: discoverResult(opened.result) };
      answer(perRequestStatus(discovered), discovered);
      return;
    }
    // progress, when the client takes an event stream, turns the answer into one
    const stream = { open: false };
    const event = (message: Record<string, unknown>): string =>
      `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    const onProgress = (notification: Record<string, unknown>): void => {
      if (!stream.open) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        stream.open = true;
      }
      res.write(event(notification));
    };
    const takesStream = (req.headers.accept ?? '').includes('text/event-stream');
    // a client that goes away before its answer cancels its request at the server
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const answered = await session.request(body, takesStream ? onProgress : undefined, gone.signal);
    if (stream.open) res.end(event(answered));
    else answer(perRequestStatus(answered), answered);
  }

  /** The route's per-request session, opened on first use; undefined when the route is ending. */
  private perRequestOf(route: RouteKey): Promise<PerRequestSession | undefined> {
    const key = keyOf(route);
    const known = this.perRequest.get(key);
    if (known !== undefined) return known;
    const opening = this.openPerRequest(route, key);
    this.perRequest.set(key, opening);
    return opening;
  }

  private async openPerRequest(
    route: RouteKey,
    key: string,
  ): Promise<PerRequestSession | undefined> {
    const session = new PerRequestSession();
    if (!(await this.options.open(route, session))) {
      this.perRequest.delete(key);
      await session.close();
      return undefined;
    }
    const served = session.onclose;
    session.onclose = () => {
      this.perRequest.delete(key);
      served?.();
    };
    return session;
  }

  private async openSession(
    req: IncomingMessage,
    res: ServerResponse,
    route: RouteKey,
    body: unknown,
  ): Promise<void> {
    const transport = new HttpSessionTransport();
    if (!(await this.options.open(route, transport))) {
      await transport.close();
      this.refuse(res, route, 'session-ended');
      return;
    }
    const id = transport.sessionId;
    this.sessions.set(id, { key: keyOf(route), transport });
    const served = transport.onclose;
    transport.onclose = () => {
      this.sessions.delete(id);
      if (this.clientEnded.delete(id)) {
        served?.();
        return;
      }
      this.endedSessions.set(id, keyOf(route));
      if (this.endedSessions.size > ENDED_SESSIONS_KEPT) {
        const oldest = this.endedSessions.keys().next().value;
        if (oldest !== undefined) this.endedSessions.delete(oldest);
      }
      served?.();
    };
    await transport.handle(req, res, body);
  }

  /** Ends every session and stops listening. */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.transport.close()));
    this.sessions.clear();
    const perRequest = await Promise.all([...this.perRequest.values()]);
    for (const session of perRequest) await session?.close();
    this.perRequest.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}
