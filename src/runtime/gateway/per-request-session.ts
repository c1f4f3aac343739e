/**
 * A route's per-request (2026-07-28) clients as one MCP SDK `Transport` the gateway serves like
 * any session: the gateway opens it with an `initialize` of its own (the client's envelope as
 * its clientInfo and capabilities), then each POST goes in under an id of this transport (the
 * `_meta` envelope removed) and its answer comes back under the client's id. A request of the
 * server has no event stream to reach a per-request client and is refused; its notifications
 * are not passed on. A client's `notifications/cancelled` names the request by this transport's id.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { NEWEST_SESSION_VERSION } from '../protocol/mcp-versions.js';
import { bodyId, rpcError, sessionInitParams, stripEnvelope } from './per-request.js';
import { METHOD_NOT_FOUND, isObject } from './relay-messages.js';

/** How long a request waits for its answer (a tool call may be long). */
export const PER_REQUEST_TIMEOUT_MS = 30 * 60 * 1000;

type Answer = (message: Record<string, unknown>) => void;

export class PerRequestSession implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private readonly waiting = new Map<string, Answer>();
  /** Ids of this transport of the client's requests in flight, by the client's id. */
  private readonly inFlight = new Map<string | number, string>();
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
      params: sessionInitParams(body, NEWEST_SESSION_VERSION),
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

  /** Sends one client request (envelope removed) and resolves with its answer under its own id. */
  async request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const clientId = bodyId(body);
    const answer = await this.exchange(stripEnvelope(body), clientId);
    return { ...answer, id: clientId ?? null };
  }

  /** Passes a client notification on (envelope removed; a cancelled request under its own id). */
  notify(body: Record<string, unknown>): void {
    if (this.closed) return;
    const out = stripEnvelope(body);
    const params = out.params;
    if (body.method === 'notifications/cancelled' && isObject(params)) {
      const target = params.requestId;
      const ours =
        typeof target === 'string' || typeof target === 'number'
          ? this.inFlight.get(target)
          : undefined;
      if (ours === undefined) return;
      out.params = { ...params, requestId: ours };
    }
    this.onmessage?.(out as JSONRPCMessage);
  }

  private exchange(
    message: Record<string, unknown>,
    clientId?: string | number,
  ): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.resolve(rpcError(undefined, -32000, 'the route has ended'));
    this.next += 1;
    const id = `codex-mmo-${String(this.next)}`;
    if (clientId !== undefined) this.inFlight.set(clientId, id);
    const done = (): void => {
      if (clientId !== undefined && this.inFlight.get(clientId) === id) {
        this.inFlight.delete(clientId);
      }
    };
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
      this.onmessage?.({ ...message, id } as JSONRPCMessage);
    }).finally(done);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const m = message as Record<string, unknown>;
    const id = m.id;
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
