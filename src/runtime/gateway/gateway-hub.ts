/**
 * The session's Tool MCP gateway in the supervising codex-mmo process. Codex reaches it either
 * over loopback Streamable HTTP (`http`: one bearer token per process and server, every route of
 * a process bound to the first Codex process that uses one, read from /proc) or through relays on
 * its own Unix socket (`relay`: mode 0600, each token accepted once per Codex process, later only
 * from relays that process started). Either way each MCP session runs a `RelayConnection`. Owns
 * every real server it starts: they end with their session, their process's routes, or the
 * gateway. Records calls in `calls.jsonl` and reports drifted tools once per process, server, tool.
 */
import type { CallAsker } from './held-calls.js';
import { unlink } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';

import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { CallLog } from './call-log.js';
import { socketChannel, transportChannel } from './codex-channel.js';
import type { CallReason, CallRecord } from './call-record.js';
import {
  credentialMatcher,
  type CredentialMatcher,
} from '../../foundation/diagnostics/credential-scan.js';
import { RelayTokens, type RouteKey } from './gateway-credentials.js';
import { HttpFront, type FrontRefusal } from './http-front.js';
import { treeResidentMb } from '../../foundation/process/process-tree.js';
import { serverRefusal, type BudgetRefusal, type TeamBudget } from '../session/team-budget.js';
import { HttpTokens } from './http-tokens.js';
import { SharedServer } from './shared-server.js';
import type { CodexChannel } from './codex-channel.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { GatewayTransport } from './gateway-transport.js';
import type { ProcessStamp } from '../../foundation/process/tcp-peer.js';
import { CONTROL_KEY, isControlLine } from './gateway-protocol.js';
import { JsonLineDecoder } from '../../foundation/json-lines.js';
import { relayLineage } from './relay-lineage.js';
import { RelayConnection, type RelayShared, type Route } from './relay-connection.js';
import type { ServerFailure } from './server-failure.js';
import type { DriftedTool } from './tool-filter.js';
import { startUpstream, type Upstream } from '../upstream/upstream.js';
import { listenPrivateSocket } from '../../foundation/process/private-socket.js';
import {
  ConnectionLimits,
  type ConnectionLimitOptions,
} from '../../foundation/process/connection-limits.js';
import { pidInOwnView } from '../../foundation/process/pid-namespace.js';
import { descendsFrom, stampOf } from '../../foundation/process/process-ancestry.js';

export interface DriftReport {
  readonly process: string;
  readonly role: string;
  readonly server: string;
  readonly tool: string;
  /** Set when a part of the server's `initialize` answer drifted (`tool` is then its label). */
  readonly part?: 'instructions' | 'serverInfo';
  readonly pinned?: string;
  readonly current: string;
}

export interface GatewayHubOptions {
  /** How Codex reaches the gateway; `relay` when absent. */
  readonly transport?: GatewayTransport;
  /** The Unix socket of the `relay` transport. */
  readonly socketPath: string;
  /** `<session>/calls.jsonl`. */
  readonly callsFile: string;
  /** Every credential value of the session: refused in arguments, masked in answers. */
  readonly secrets: readonly string[];
  /** Called once per drifted tool of a process and server. */
  readonly onDrift?: (report: DriftReport) => void;
  /** Called when the set of running stdio server process groups changes. */
  readonly onGroups?: (pids: readonly number[]) => void;
  /** A server's stderr (masked) when its relay connection ends. */
  readonly onStderr?: (route: Route, text: string) => void;
  /** Called with every call record as it is appended to calls.jsonl. */
  readonly onRecord?: (entry: CallRecord) => void;
  /** A server that could not start, did not answer its first request, or went away (masked). */
  readonly onServerFailure?: (failure: ServerFailure) => void;
  /** Limits on connections (HTTP front or relay socket) that have not yet authenticated. */
  readonly limits?: ConnectionLimitOptions;
  /** The session's ceilings on Tool MCP server processes and memory (absent: none). */
  readonly budget?: Pick<TeamBudget, 'server_processes' | 'memory_mb'>;
  /** The resident memory of the session's processes now, in MB (for a memory ceiling). */
  readonly memoryMb?: () => number;
  /** Called with every server start a ceiling refused, with the route that asked. */
  readonly onBudgetRefusal?: (refusal: BudgetRefusal, route: Route) => void;
  /** The session's approval queue, for routes whose calls the gateway asks about. */
  readonly asker?: CallAsker;
}

/** The relay socket's name in a flood report. */
export const RELAY_SOCKET_LISTENER = 'gateway-relay';

/** The refusal of a relay without a valid, unspent token. */
export const NO_TOKEN_MESSAGE =
  'this relay did not present an unspent gateway token of this session; a token opens one connection, once';

/** The hello's pid in this process's view (a relay in a container names its own namespace). */
function relayPid(hello: { pid?: unknown; pid_ns?: unknown }): number | undefined {
  if (typeof hello.pid !== 'number' || !Number.isInteger(hello.pid)) return undefined;
  return pidInOwnView(hello.pid, typeof hello.pid_ns === 'string' ? hello.pid_ns : undefined);
}

function routeKey(process: string, server: string): string {
  return `${process}\u0000${server}`;
}

export class GatewayHub {
  private readonly tokens = new RelayTokens();
  private readonly httpTokens = new HttpTokens();
  /** The Codex process each session process's HTTP routes are bound to (its first user). */
  private readonly peers = new Map<string, ProcessStamp>();
  /** What the supervisor spawned for each session process, by process (see `bindSpawned`). */
  private readonly spawned = new Map<string, ProcessStamp>();
  private front: HttpFront | undefined;
  /** Routes served in this process (`mmo_mesh`), by route key. */
  private readonly local = new Map<string, (transport: Transport) => Promise<void>>();
  /** The process root role of each local route. */
  private readonly localRoles = new Map<string, string>();
  /** Open sessions of local routes, by process. */
  private readonly localSessions = new Map<string, Set<Transport>>();
  private readonly routes = new Map<string, Route>();
  private readonly connections = new Set<RelayConnection>();
  private readonly byProcess = new Map<string, Set<RelayConnection>>();
  private readonly drift = new Map<string, Set<string>>();
  private readonly groups = new Set<number>();
  /** Stdio servers being started, counted against the server ceiling with those running. */
  private startingServers = 0;
  /** The one instance of each `shared = true` server, by server id. */
  private readonly sharedServers = new Map<string, SharedServer>();
  /** Servers started ahead of their relay, by route, until the relay claims them. */
  private readonly warm = new Map<string, Promise<Upstream>>();
  private readonly sockets = new Set<Socket>();
  private readonly log: CallLog;
  private matcher: CredentialMatcher;
  private secrets: string[];
  private server: Server | undefined;
  private relayLimits: ConnectionLimits | undefined;
  private closing = false;
  private stopping = false;

  private constructor(private readonly options: GatewayHubOptions) {
    this.log = new CallLog(options.callsFile);
    this.secrets = [...options.secrets];
    this.matcher = credentialMatcher(this.secrets);
  }

  static async start(options: GatewayHubOptions): Promise<GatewayHub> {
    const hub = new GatewayHub(options);
    if (options.transport === 'http') {
      hub.front = await HttpFront.listen({
        lookup: (token) => hub.httpTokens.lookup(token),
        ended: (token) => hub.httpTokens.isEnded(token),
        admitPeer: (process, peer) => hub.admitPeer(process, peer),
        boundPeer: (process) => {
          // once bound, only the bound process may hold it: its container's tree is not walked
          const pid = hub.peers.get(process)?.pid;
          if (pid !== undefined) return { pid };
          const within = hub.spawned.get(process)?.pid;
          return within !== undefined ? { within } : {};
        },
        open: (route, channel) => hub.openHttp(route, channel),
        refused: (route, why) => {
          hub.recordRefusal(route, why);
        },
        ...(options.limits !== undefined ? { limits: options.limits } : {}),
      });
    } else {
      hub.relayLimits = new ConnectionLimits(RELAY_SOCKET_LISTENER, options.limits);
      hub.server = await listenPrivateSocket(options.socketPath, (socket) => {
        hub.accept(socket);
      });
    }
    return hub;
  }

  get socketPath(): string {
    return this.options.socketPath;
  }

  get transport(): GatewayTransport {
    return this.options.transport ?? 'relay';
  }

  /** The loopback URL of the `http` transport. */
  get url(): string | undefined {
    return this.front?.url;
  }

  /** Adds credential values (a participant's own) to those refused and masked. */
  addSecrets(values: readonly string[]): void {
    const fresh = values.filter((v) => v !== '' && !this.secrets.includes(v));
    if (fresh.length === 0) return;
    this.secrets.push(...fresh);
    this.matcher = credentialMatcher(this.secrets);
  }

  /** Registers a route and returns its token: for that process's environment only. */
  addRoute(route: Route, options: { readonly prestart?: boolean } = {}): string {
    const key = routeKey(route.process, route.server);
    this.routes.set(key, route);
    if (options.prestart === true && route.definition.shared === true) {
      this.sharedServer(route).warm();
    } else if (options.prestart === true && !this.warm.has(key)) {
      // started now, so Codex's wait for the server overlaps the relay's own start
      const started = this.startServer(route);
      started.then(
        (upstream) => {
          if (upstream.pid !== undefined) this.shared().serverGroup(upstream.pid, true);
        },
        () => undefined,
      );
      this.warm.set(key, started);
    }
    const key2: RouteKey = { process: route.process, server: route.server };
    return this.transport === 'http' ? this.httpTokens.issue(key2) : this.tokens.issue(key2);
  }

  /**
   * The process the supervisor spawned for a session process (its container): from now on only
   * that process and its descendants may bind the session process's HTTP routes.
   */
  bindSpawned(process: string, pid: number): void {
    const stamp = stampOf(pid);
    if (stamp !== undefined) this.spawned.set(process, stamp);
  }

  /**
   * Whether `peer` may use the HTTP routes of `process`: the first process to ask binds them,
   * and it must descend from the process the supervisor spawned for it (when known); from then
   * on only that very process may (even as its container ends around it).
   */
  private admitPeer(process: string, peer: ProcessStamp | undefined): boolean {
    if (peer === undefined) return false;
    const bound = this.peers.get(process);
    if (bound !== undefined) return bound.pid === peer.pid && bound.start === peer.start;
    const root = this.spawned.get(process);
    if (root !== undefined && !descendsFrom(peer.pid, root)) return false;
    this.peers.set(process, peer);
    return true;
  }

  /**
   * A route served in this process over the HTTP front (`mmo_mesh`): `token` (the process's own
   * credential for it) opens it, bound like every route of the process; `serve` connects an MCP
   * server to each new session's transport. Only with the `http` transport.
   */
  addLocalRoute(
    key: RouteKey,
    role: string,
    token: string,
    serve: (transport: Transport) => Promise<void>,
  ): void {
    this.httpTokens.register(token, key);
    this.local.set(routeKey(key.process, key.server), serve);
    this.localRoles.set(routeKey(key.process, key.server), role);
  }

  /** Serves a new MCP session of an HTTP route on `transport`; false when refused. */
  private async openHttp(key: RouteKey, transport: Transport): Promise<boolean> {
    if (this.stopping || this.closing) return false;
    const serve = this.local.get(routeKey(key.process, key.server));
    if (serve !== undefined) {
      const open = this.localSessions.get(key.process) ?? new Set<Transport>();
      this.localSessions.set(key.process, open);
      open.add(transport);
      await serve(transport);
      const served = transport.onclose;
      transport.onclose = () => {
        open.delete(transport);
        served?.();
      };
      return true;
    }
    const route = this.routes.get(routeKey(key.process, key.server));
    if (route === undefined) return false;
    const connection = this.open(route, transportChannel(transport));
    transport.onmessage = (message) => {
      connection.fromCodex(message);
    };
    await transport.start();
    return true;
  }

  /** Ends the sessions of local routes (of one process, or all). */
  private async closeLocal(process?: string): Promise<void> {
    const open = [...this.localSessions.entries()].filter(
      ([owner]) => process === undefined || owner === process,
    );
    await Promise.all(
      open.flatMap(([, sessions]) => [...sessions].map((t) => t.close().catch(() => undefined))),
    );
  }

  /**
   * Starts a route's server within the session's budget: a stdio server beyond the ceiling on
   * server processes, or one the memory ceiling has no room for, is not started (rejected with a
   * `BudgetExceededError` naming the ceiling) and the refusal is reported.
   */
  private startServer(route: Route): Promise<Upstream> {
    if (route.definition.transport !== 'stdio')
      return startUpstream(route.definition, route.launch);
    const budget: TeamBudget = { participants: Number.MAX_SAFE_INTEGER, ...this.options.budget };
    // memory is read from /proc only for a memory ceiling: most sessions have none
    const memory = budget.memory_mb === undefined ? undefined : this.options.memoryMb?.();
    const running = this.groups.size + this.startingServers;
    const refusal = serverRefusal(
      budget,
      {
        participants: 0,
        codex_processes: 0,
        server_processes: running,
        ...(memory !== undefined ? { memory_mb: memory } : {}),
      },
      route.server,
      // servers still starting will take their share too
      memory === undefined ? 0 : expectedServerMb(this.groups) * (this.startingServers + 1),
    );
    if (refusal !== undefined) {
      this.options.onBudgetRefusal?.(refusal, route);
      return Promise.reject(new BudgetExceededError(refusal));
    }
    this.startingServers++;
    const started = startUpstream(route.definition, route.launch);
    void started.then(
      () => this.startingServers--,
      () => this.startingServers--,
    );
    return started;
  }

  /** The one instance of a `shared = true` server (started with its first connection). */
  private sharedServer(route: Route): SharedServer {
    const known = this.sharedServers.get(route.server);
    if (known !== undefined) return known;
    const server = new SharedServer({
      start: () => this.startServer(route),
      serverGroup: (pid, alive) => {
        this.shared().serverGroup(pid, alive);
      },
    });
    this.sharedServers.set(route.server, server);
    return server;
  }

  /** Server ids that run one instance for the whole session. */
  sharedServerIds(): string[] {
    return [...this.sharedServers.keys()].sort();
  }

  /** Runs a connection for `route` on `channel`, with its server if it was started ahead. */
  private open(route: Route, channel: CodexChannel): RelayConnection {
    const key = routeKey(route.process, route.server);
    const prestarted =
      route.definition.shared === true ? this.sharedServer(route).attach() : this.warm.get(key);
    this.warm.delete(key);
    const opened = new RelayConnection(channel, route, this.shared(), prestarted);
    this.connections.add(opened);
    const mine = this.byProcess.get(route.process) ?? new Set<RelayConnection>();
    mine.add(opened);
    this.byProcess.set(route.process, mine);
    channel.onClose(() => {
      this.connections.delete(opened);
      mine.delete(opened);
    });
    return opened;
  }

  /** Records a request the HTTP front refused before any route saw it (by the front's reason). */
  private recordRefusal(route: RouteKey | undefined, why: FrontRefusal): void {
    const key = route === undefined ? '' : routeKey(route.process, route.server);
    this.recordCall({
      time: new Date().toISOString(),
      process: route?.process ?? '',
      role: this.routes.get(key)?.role ?? this.localRoles.get(key) ?? null,
      thread: null,
      parent_thread: null,
      server: route?.server ?? '',
      tool: '',
      method: `http:${why}`,
      outcome: 'blocked',
      reason: frontReason(why),
      duration_ms: 0,
    });
  }

  /** Stops the servers started ahead that no relay claimed (of one process, or all). */
  private async stopWarm(process?: string): Promise<void> {
    const stops: Promise<void>[] = [];
    for (const [key, started] of this.warm) {
      if (process !== undefined && !key.startsWith(`${process}\u0000`)) continue;
      this.warm.delete(key);
      stops.push(
        started.then(
          async (upstream) => {
            await upstream.stop();
            if (upstream.pid !== undefined) this.shared().serverGroup(upstream.pid, false);
          },
          () => undefined,
        ),
      );
    }
    await Promise.all(stops);
  }

  /** The tools withheld for drift so far, per process and server. */
  driftedTools(): { process: string; server: string; tools: string[] }[] {
    return [...this.drift.entries()].map(([key, tools]) => {
      const [process = '', server = ''] = key.split('\u0000');
      return { process, server, tools: [...tools].sort() };
    });
  }

  /** Ends every connection of `process` and spends its unused tokens (the process has ended). */
  async closeProcess(process: string): Promise<void> {
    this.tokens.revokeProcess(process);
    this.httpTokens.revokeProcess(process);
    this.spawned.delete(process);
    const open = [...(this.byProcess.get(process) ?? [])];
    await Promise.all([
      ...open.map((c) => c.close()),
      this.stopWarm(process),
      this.closeLocal(process),
    ]);
  }

  /**
   * The session is ending: from now on every request of every connection is refused and recorded
   * as `session-ended`, and no new relay is accepted; the servers keep running until `close`.
   */
  beginStop(): void {
    this.stopping = true;
  }

  /** Stops every server, closes the socket and removes it; waits for the call log. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([
      ...[...this.connections].map((c) => c.close()),
      this.stopWarm(),
      this.closeLocal(),
    ]);
    await Promise.all([...this.sharedServers.values()].map((server) => server.stop()));
    for (const socket of this.sockets) socket.destroy();
    await this.front?.close();
    const server = this.server;
    if (server !== undefined) {
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    }
    if (this.transport === 'relay') await unlink(this.options.socketPath).catch(() => undefined);
    await this.log.flush();
  }

  /**
   * Records a call refused before it reached the gateway (a tool the model was not offered, an
   * approval denied or expired): calls.jsonl keeps every call of the session, wherever refused.
   */
  recordCall(entry: CallRecord): void {
    this.log.append(entry);
    this.options.onRecord?.(entry);
  }

  /** Resolves once every call record so far is written. */
  flush(): Promise<void> {
    return this.log.flush();
  }

  private shared(): RelayShared {
    // functions: credential values a participant adds later apply to open connections as well
    return {
      matcher: () => this.matcher,
      secrets: () => this.secrets,
      record: (entry: CallRecord) => {
        this.recordCall(entry);
      },
      drifted: (route, tools) => {
        this.reportDrift(route, tools);
      },
      isDrifted: (route, tool) =>
        this.drift.get(routeKey(route.process, route.server))?.has(tool) === true,
      serverGroup: (pid, alive) => {
        if (alive) this.groups.add(pid);
        else this.groups.delete(pid);
        this.options.onGroups?.([...this.groups]);
      },
      stderr: (route, text) => {
        this.options.onStderr?.(route, text);
      },
      failed: (failure) => {
        this.options.onServerFailure?.(failure);
      },
      stopping: () => this.stopping || this.closing,
      start: (route) => this.startServer(route),
      ...(this.options.asker !== undefined ? { asker: this.options.asker } : {}),
    };
  }

  private reportDrift(route: Route, tools: readonly DriftedTool[]): void {
    const key = routeKey(route.process, route.server);
    const known = this.drift.get(key) ?? new Set<string>();
    this.drift.set(key, known);
    for (const tool of tools) {
      if (known.has(tool.tool)) continue;
      known.add(tool.tool);
      this.log.append({
        time: new Date().toISOString(),
        process: route.process,
        role: route.role,
        thread: null,
        parent_thread: null,
        server: route.server,
        tool: tool.tool,
        method: tool.part !== undefined ? 'initialize' : 'tools/list',
        outcome: 'blocked',
        reason: 'tool-drift',
        duration_ms: 0,
      });
      this.options.onDrift?.({
        process: route.process,
        role: route.role,
        server: route.server,
        tool: tool.tool,
        ...(tool.part !== undefined ? { part: tool.part } : {}),
        ...(tool.pinned !== undefined ? { pinned: tool.pinned } : {}),
        current: tool.current,
      });
    }
  }

  private accept(socket: Socket): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    this.relayLimits?.admit(socket);
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let connection: RelayConnection | undefined;
    let refused = false;
    const refuse = (message: string): void => {
      refused = true;
      socket.end(`${JSON.stringify({ [CONTROL_KEY]: 'refused', message })}\n`);
    };
    const decoder = new JsonLineDecoder((value) => {
      if (refused) return;
      if (connection !== undefined) {
        connection.fromCodex(value);
        return;
      }
      if (!isControlLine(value) || value[CONTROL_KEY] !== 'hello') {
        refuse('send hello first');
        return;
      }
      if (this.stopping) {
        refuse('the session is ending [session-ended]: no new connection is accepted');
        return;
      }
      const redeemed = this.tokens.redeem(
        typeof value.token === 'string' ? value.token : '',
        relayLineage(relayPid(value)),
      );
      if (!redeemed.ok) {
        refuse(
          redeemed.reason === 'spent'
            ? 'this gateway token was already used by another connection; after its first use a token opens connections only for relays started by the same Codex process'
            : NO_TOKEN_MESSAGE,
        );
        return;
      }
      const { process, server } = redeemed.route;
      const route = this.routes.get(routeKey(process, server));
      if (route === undefined || value.server !== server || value.process !== process) {
        refuse(
          maskSecrets(
            `this token belongs to server '${server}' of process '${process}', not to what this relay was started for`,
            this.secrets,
          ),
        );
        return;
      }
      this.relayLimits?.authenticated(socket);
      socket.write(`${JSON.stringify({ [CONTROL_KEY]: 'ready' })}\n`);
      connection = this.open(route, socketChannel(socket));
    });
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
    });
  }
}

/**
 * The call-log reason of a front refusal: the codex-mmo session ended, the MCP session a request
 * names ended (its server went away, or its client ended it), or a request the front would not
 * take from that caller.
 */
function frontReason(why: FrontRefusal): CallReason {
  if (why === 'session-ended') return 'session-ended';
  return why === 'session-gone' ? 'server-gone' : 'not-authorized';
}

/** A server start the session's budget refused. */
export class BudgetExceededError extends Error {
  readonly code = 'budget-exceeded';
  constructor(readonly refusal: BudgetRefusal) {
    super(refusal.message);
  }
}

/** What one more server is expected to take: the mean of those running (0 with none). */
function expectedServerMb(groups: ReadonlySet<number>): number {
  if (groups.size === 0) return 0;
  let total = 0;
  for (const pid of groups) total += treeResidentMb(pid);
  return total / groups.size;
}
