/**
 * One upstream instance of a `shared = true` server for every Codex process of a session granted
 * it. Each connection sees it through its own view (an `Upstream`), so every rule of its
 * `RelayConnection` applies per process and role; the server sees one client. Request ids and
 * progress tokens are renumbered per view, answers and progress go back to the view that asked,
 * the first `initialize` is forwarded and its result answers every later one, list-changed and
 * log notifications go to every view, and a request of the server goes to the view with the
 * oldest call in flight. The server starts with the first view and ends with the last.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import type { Upstream } from '../upstream/upstream.js';
import { idOf, isObject, rpcRefusal, type Id } from './relay-messages.js';

/** What the shared server needs from the gateway. */
export interface SharedServerHost {
  /** Starts the real server (with the first connection's launch context). */
  start(): Promise<Upstream>;
  /** A stdio server's process group, when it starts and when it is gone. */
  serverGroup(pid: number, alive: boolean): void;
}

interface Pending {
  readonly view: SharedView;
  readonly id: Id;
  readonly token?: Id;
}

/** A message rebuilt from one already checked as JSON-RPC. */
function asMessage(value: Record<string, unknown>): JSONRPCMessage {
  return value as JSONRPCMessage;
}

type Handler = ((message: JSONRPCMessage) => void) | undefined;

/** One connection's way to the shared server: a transport and the `Upstream` around it. */
class SharedView implements Transport {
  onmessage: Handler;
  onclose: (() => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  private detached = false;

  constructor(
    private readonly owner: SharedServer,
    readonly upstream: Upstream,
  ) {}

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.detached) return Promise.reject(new Error('the connection to the server is closed'));
    return this.owner.fromView(this, message);
  }

  close(): Promise<void> {
    return this.detach();
  }

  deliver(message: JSONRPCMessage): void {
    if (!this.detached) this.onmessage?.(message);
  }

  /** The server is gone. */
  gone(): void {
    if (this.detached) return;
    this.detached = true;
    this.onclose?.();
  }

  async detach(): Promise<void> {
    if (this.detached) return;
    this.detached = true;
    await this.owner.detach(this);
  }

  /** This view as the `Upstream` a `RelayConnection` runs on (the process group is the server's). */
  asUpstream(): Upstream {
    const real = this.upstream;
    return {
      transport: this,
      revision: () => real.revision(),
      stderrText: () => real.stderrText(),
      describeExit: () => real.describeExit(),
      stop: () => this.detach(),
      alive: () => real.alive(),
      secrets: real.secrets,
    };
  }
}

export class SharedServer {
  private running: Promise<Upstream> | undefined;
  private readonly views = new Set<SharedView>();
  private readonly pending = new Map<string, Pending>();
  private readonly tokens = new Map<string, Pending>();
  private readonly serverRequests = new Map<Id, SharedView>();
  private counter = 0;
  /** The first `initialize` in flight (its renumbered id) and the server's answer to it. */
  private init: { id: string; answer: Promise<Record<string, unknown>> } | undefined;
  private resolveInit: ((answer: Record<string, unknown>) => void) | undefined;
  private initialized = false;

  constructor(private readonly host: SharedServerHost) {}

  /** Starts the server ahead of its first connection. */
  warm(): void {
    void this.launch().catch(() => undefined);
  }

  /** A new connection's view of the server (started with the first). */
  async attach(): Promise<Upstream> {
    const upstream = await this.launch();
    const view = new SharedView(this, upstream);
    this.views.add(view);
    return view.asUpstream();
  }

  private launch(): Promise<Upstream> {
    if (this.running !== undefined) return this.running;
    const running = this.host.start().then((upstream) => {
      if (upstream.pid !== undefined) this.host.serverGroup(upstream.pid, true);
      upstream.transport.onmessage = (message) => {
        this.fromServer(message);
      };
      upstream.transport.onclose = () => {
        for (const view of [...this.views]) view.gone();
      };
      return upstream;
    });
    running.catch(() => {
      // a server that could not start is tried again by the next connection
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  /** A message of one view, on its way to the server. */
  async fromView(view: SharedView, message: JSONRPCMessage): Promise<void> {
    const m = message as Record<string, unknown>;
    const id = idOf(m);
    const method = typeof m.method === 'string' ? m.method : undefined;
    const upstream = await this.launch();
    if (method === undefined) {
      // an answer to a request of the server: only from the view that was asked
      if (id !== undefined && this.serverRequests.get(id) === view) {
        this.serverRequests.delete(id);
        await upstream.transport.send(message);
      }
      return;
    }
    if (id === undefined) {
      await this.notification(view, method, m, upstream);
      return;
    }
    if (method === 'initialize' && this.init !== undefined) {
      const answer = await this.init.answer;
      view.deliver({ ...answer, id } as JSONRPCMessage);
      return;
    }
    const mapped = `shared-${String(++this.counter)}`;
    const params = isObject(m.params) ? { ...m.params } : m.params;
    let token: Id | undefined;
    if (isObject(params) && isObject(params._meta)) {
      const original = params._meta.progressToken;
      if (typeof original === 'string' || typeof original === 'number') {
        token = original;
        params._meta = { ...params._meta, progressToken: mapped };
      }
    }
    const entry: Pending = { view, id, ...(token !== undefined ? { token } : {}) };
    this.pending.set(mapped, entry);
    if (token !== undefined) this.tokens.set(mapped, entry);
    if (method === 'initialize') {
      this.init = {
        id: mapped,
        answer: new Promise((resolve) => {
          this.resolveInit = resolve;
        }),
      };
    }
    await upstream.transport.send({ ...m, id: mapped, params } as JSONRPCMessage);
  }

  private async notification(
    view: SharedView,
    method: string,
    m: Record<string, unknown>,
    upstream: Upstream,
  ): Promise<void> {
    if (method === 'notifications/initialized') {
      if (this.initialized) return;
      this.initialized = true;
    } else if (method === 'notifications/cancelled') {
      const params = isObject(m.params) ? m.params : {};
      const mapped = [...this.pending.entries()].find(
        ([, p]) => p.view === view && p.id === params.requestId,
      )?.[0];
      if (mapped === undefined) return;
      await upstream.transport.send(asMessage({ ...m, params: { ...params, requestId: mapped } }));
      return;
    }
    await upstream.transport.send(m as JSONRPCMessage);
  }

  /** A message of the server, on its way to the view it belongs to (or every view). */
  private fromServer(message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    const id = idOf(m);
    const method = typeof m.method === 'string' ? m.method : undefined;
    if (method === undefined) {
      if (typeof id !== 'string') return;
      const entry = this.pending.get(id);
      this.pending.delete(id);
      this.tokens.delete(id);
      if (this.init?.id === id) {
        this.resolveInit?.(m);
        // a failed handshake is not kept: the next connection asks again
        if (!('result' in m)) this.init = undefined;
      }
      entry?.view.deliver({ ...m, id: entry.id } as JSONRPCMessage);
      return;
    }
    if (id !== undefined) {
      this.serverRequest(id, m);
      return;
    }
    const params = isObject(m.params) ? m.params : {};
    if (method === 'notifications/progress') {
      const token = params.progressToken;
      const entry = typeof token === 'string' ? this.tokens.get(token) : undefined;
      if (entry?.token === undefined) return;
      entry.view.deliver(asMessage({ ...m, params: { ...params, progressToken: entry.token } }));
      return;
    }
    if (method === 'notifications/cancelled') {
      const target = params.requestId;
      const view =
        typeof target === 'string' || typeof target === 'number'
          ? this.serverRequests.get(target)
          : undefined;
      view?.deliver(message);
      return;
    }
    for (const view of this.views) view.deliver(message);
  }

  /** A request of the server goes to the view with the oldest call in flight, if any. */
  private serverRequest(id: Id, m: Record<string, unknown>): void {
    const view = this.pending.values().next().value?.view;
    if (view === undefined) {
      void this.running
        ?.then((upstream) =>
          upstream.transport.send(
            rpcRefusal(id, 'codex-mmo: no client of this shared server is waiting for an answer'),
          ),
        )
        .catch(() => undefined);
      return;
    }
    this.serverRequests.set(id, view);
    view.deliver(m as JSONRPCMessage);
  }

  /** A view is gone; the server stops with the last one. */
  async detach(view: SharedView): Promise<void> {
    this.views.delete(view);
    for (const [mapped, entry] of this.pending) {
      if (entry.view === view) {
        this.pending.delete(mapped);
        this.tokens.delete(mapped);
      }
    }
    for (const [id, asked] of this.serverRequests)
      if (asked === view) this.serverRequests.delete(id);
    if (this.views.size === 0) await this.stop();
  }

  /** Stops the server (the last view is gone, or the session ends). */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    this.init = undefined;
    this.resolveInit = undefined;
    this.initialized = false;
    if (running === undefined) return;
    const upstream = await running.catch(() => undefined);
    if (upstream === undefined) return;
    await upstream.stop();
    if (upstream.pid !== undefined) this.host.serverGroup(upstream.pid, false);
  }
}
