/**
 * A route's per-request (2026-07-28) clients as one MCP SDK `Transport` the gateway serves like
 * any session: the gateway opens it with an `initialize` of its own in the client's revision
 * (the client's envelope as its clientInfo and capabilities), so the upstream speaks 2026-07-28
 * where the server does; then each POST goes in under an id of this transport (its envelope
 * kept; the upstream removes it for a session server) and its answer comes back under the
 * client's id, completed as a 2026 result. A request of the server has no event stream to reach
 * a per-request client and is refused; of its notifications only progress is passed on, to the
 * request whose progress token it carries. A client's
 * `notifications/cancelled` names the request by this transport's id.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import {
  listedParamHeaders,
  paramHeaderMismatch,
  type ParamHeader,
} from '../protocol/mcp-headers.js';
import { NEWEST_DISCOVER_VERSION } from '../protocol/mcp-versions.js';
import { bodyId, perRequestAnswer, rpcError, sessionInitParams } from './per-request.js';
import { METHOD_NOT_FOUND, isObject } from './relay-messages.js';

/** How long a request waits for its answer (a tool call may be long). */
export const PER_REQUEST_TIMEOUT_MS = 30 * 60 * 1000;

type Answer = (message: Record<string, unknown>) => void;

/** `body` with its progress token replaced by `token`. */
function withProgressToken(body: Record<string, unknown>, token: string): Record<string, unknown> {
  const params = isObject(body.params) ? body.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  return { ...body, params: { ...params, _meta: { ...meta, progressToken: token } } };
}

/** The progress token a request's `_meta` carries, if any. */
function progressTokenOf(body: Record<string, unknown>): string | number | undefined {
  const params = body.params;
  const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
  const token = meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

export class PerRequestSession implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private readonly waiting = new Map<string, Answer>();
  /** Ids of this transport of the client's requests in flight, by the client's id. */
  private readonly inFlight = new Map<string | number, Set<string>>();
  /** The `x-mcp-header` declarations of the tools listed to the client, by tool. */
  private readonly declared = new Map<string, readonly ParamHeader[]>();
  /** Who is told of progress, by this transport's id of a request in flight (its token upstream). */
  private readonly progress = new Map<string | number, Answer>();
  private closed = false;
  private opened: Promise<Record<string, unknown>> | undefined;

  start(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * The `initialize` result of the route's server, opening the session on first use with `body`'s
   * envelope; an error message when it could not be opened.
   */
  open(body: unknown): Promise<Record<string, unknown>> {
    this.opened ??= this.exchange({
      jsonrpc: '2.0',
      method: 'initialize',
      params: sessionInitParams(body, NEWEST_DISCOVER_VERSION),
    }).then((answer) => {
      if (isObject(answer.result)) {
        this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
      } else {
        this.opened = undefined;
      }
      return answer;
    });
    return this.opened;
  }

  /**
   * Sends one client request and resolves with its answer under its own id, as 2026 has it.
   * Its progress token goes to the server as this transport's id for it, so requests of
   * different threads that chose the same token (or id) never hear each other's progress;
   * `onProgress` gets the server's progress under the client's own token. Once `signal` aborts
   * (the client went away), the server is told the request is cancelled.
   */
  async request(
    body: Record<string, unknown>,
    onProgress?: (notification: Record<string, unknown>) => void,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const clientId = bodyId(body);
    const token = progressTokenOf(body);
    const method = typeof body.method === 'string' ? body.method : '';
    const answer = await this.exchange(body, clientId, (ours) => {
      if (token !== undefined && onProgress !== undefined) {
        this.progress.set(ours, (m) => {
          onProgress({ ...m, params: { ...(m.params as object), progressToken: token } });
        });
      }
      signal?.addEventListener('abort', () => {
        this.cancel(ours);
      });
      return token === undefined ? body : withProgressToken(body, ours);
    });
    if (method === 'tools/list') this.learn(answer.result);
    return { ...perRequestAnswer(method, answer), id: clientId ?? null };
  }

  /** Tells the server a request of this transport is cancelled (its client went away). */
  private cancel(ours: string): void {
    if (this.closed || !this.waiting.has(ours)) return;
    this.onmessage?.({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: ours, reason: 'the client went away' },
    });
  }

  /**
   * Why a `tools/call`'s `Mcp-Param-*` headers disagree with its arguments (SEP-2243), for a tool
   * this route listed to the client with `x-mcp-header` declarations; undefined when they agree.
   */
  paramMismatch(header: (name: string) => string | undefined, body: unknown): string | undefined {
    if (!isObject(body) || body.method !== 'tools/call' || !isObject(body.params)) return undefined;
    const name = body.params.name;
    const declared = typeof name === 'string' ? this.declared.get(name) : undefined;
    return declared === undefined
      ? undefined
      : paramHeaderMismatch(declared, body.params.arguments, header);
  }

  private learn(result: unknown): void {
    for (const [tool, declared] of listedParamHeaders(result)) this.declared.set(tool, declared);
  }

  /** Passes a client notification on (a cancelled request under this transport's id). */
  notify(body: Record<string, unknown>): void {
    if (this.closed) return;
    const out: Record<string, unknown> = { ...body };
    const params = out.params;
    if (body.method === 'notifications/cancelled' && isObject(params)) {
      const target = params.requestId;
      const named =
        typeof target === 'string' || typeof target === 'number'
          ? this.inFlight.get(target)
          : undefined;
      // an id two requests in flight share (two threads counting alike) cancels neither
      if (named === undefined || named.size !== 1) return;
      out.params = { ...params, requestId: [...named][0] };
    }
    this.onmessage?.(out as JSONRPCMessage);
  }

  private exchange(
    message: Record<string, unknown>,
    clientId?: string | number,
    prepare?: (ours: string) => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.resolve(rpcError(undefined, -32000, 'the route has ended'));
    this.next += 1;
    const id = `codex-mmo-${String(this.next)}`;
    if (clientId !== undefined) {
      const named = this.inFlight.get(clientId) ?? new Set<string>();
      named.add(id);
      this.inFlight.set(clientId, named);
    }
    const done = (): void => {
      this.progress.delete(id);
      if (clientId === undefined) return;
      const named = this.inFlight.get(clientId);
      named?.delete(id);
      if (named?.size === 0) this.inFlight.delete(clientId);
    };
    const out = prepare?.(id) ?? message;
    return new Promise<Record<string, unknown>>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(rpcError(id, -32001, 'codex-mmo gateway: the server did not answer in time'));
      }, PER_REQUEST_TIMEOUT_MS);
      timer.unref();
      this.waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.onmessage?.({ ...out, id } as JSONRPCMessage);
    }).finally(done);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const m = message as Record<string, unknown>;
    const id = m.id;
    if (m.method === 'notifications/progress' && id === undefined) {
      // progress goes to the request that asked for it, on that request's answer stream
      const token = isObject(m.params) ? m.params.progressToken : undefined;
      const tell =
        typeof token === 'string' || typeof token === 'number'
          ? this.progress.get(token)
          : undefined;
      tell?.(m);
      return Promise.resolve();
    }
    if (typeof m.method === 'string') {
      // a request of the server: a per-request client has no stream to receive it on
      if (typeof id === 'string' || typeof id === 'number') {
        this.onmessage?.(
          rpcError(
            id,
            METHOD_NOT_FOUND,
            `codex-mmo gateway: '${m.method}' cannot reach a client of MCP 2026-07-28 (no event stream)`,
          ) as JSONRPCMessage,
        );
      }
      return Promise.resolve();
    }
    if (typeof id !== 'string') return Promise.resolve();
    const answer = this.waiting.get(id);
    if (answer !== undefined) {
      this.waiting.delete(id);
      answer(m);
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const [id, answer] of this.waiting) answer(rpcError(id, -32000, 'the route has ended'));
    this.waiting.clear();
    this.onclose?.();
    return Promise.resolve();
  }
}
