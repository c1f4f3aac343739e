/**
 * One MCP session of the gateway's loopback Streamable HTTP front, as an MCP SDK `Transport` on
 * plain node:http (the SDK's server transport goes through web streams and an adapter, which
 * doubled the added latency of a call): a POSTed request is answered on an event stream of its
 * own that ends with its response (Codex 0.149 leaves a server's request unread while it waits
 * for a plain JSON answer), a notification or response gets 202, a GET opens the one event stream
 * for what the server sends unasked (kept until the client opens it, or reopens it), and DELETE
 * ends the session. Batches are refused.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Messages kept for an event stream the client has not opened yet (the oldest go first). */
export const MAX_HELD_EVENTS = 256;

/** The largest request body accepted (a `tools/call` with its arguments). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The request's body as JSON; undefined when it is not JSON, 'too-large' past the limit. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

type Id = string | number;

function idOf(message: Record<string, unknown>): Id | undefined {
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function event(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function rpcError(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }));
}

export class HttpSessionTransport implements Transport {
  readonly sessionId = randomUUID();
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** POSTed requests waiting for their response, by id. */
  private readonly waiting = new Map<Id, ServerResponse>();
  private stream: ServerResponse | undefined;
  /** What the server sent unasked while no event stream was open. */
  private held: string[] = [];
  private closed = false;

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** A request of this session (its id already checked); `body` when already read. */
  async handle(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (this.closed) {
      rpcError(res, 404, 'the session has ended');
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      await this.close();
      return;
    }
    if (req.method === 'GET') {
      this.openStream(req, res);
      return;
    }
    if (req.method !== 'POST') {
      rpcError(res, 405, 'POST, GET or DELETE');
      return;
    }
    const message = body ?? (await readJson(req));
    if (message === 'too-large') {
      rpcError(res, 413, 'the request is too large');
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      rpcError(res, 400, 'send one JSON-RPC message per request');
      return;
    }
    const m = message as Record<string, unknown>;
    const id = idOf(m);
    if (typeof m.method === 'string' && id !== undefined) {
      if (this.waiting.has(id)) {
        rpcError(res, 409, 'a request with this id is pending');
        return;
      }
      this.waiting.set(id, res);
      res.writeHead(200, this.eventHeaders());
      res.flushHeaders();
      res.on('close', () => {
        if (this.waiting.get(id) === res) this.waiting.delete(id);
      });
    } else {
      res.writeHead(202).end();
    }
    this.onmessage?.(m as JSONRPCMessage);
  }

  private openStream(req: IncomingMessage, res: ServerResponse): void {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      rpcError(res, 406, 'a GET must accept text/event-stream');
      return;
    }
    if (this.stream !== undefined) {
      rpcError(res, 409, 'the event stream is already open');
      return;
    }
    res.writeHead(200, this.eventHeaders());
    res.flushHeaders();
    this.stream = res;
    for (const held of this.held) res.write(held);
    this.held = [];
    res.on('close', () => {
      if (this.stream === res) this.stream = undefined;
    });
  }

  private eventHeaders(): Record<string, string> {
    return {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'mcp-session-id': this.sessionId,
    };
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    const m = message as Record<string, unknown>;
    const id = idOf(m);
    if (typeof m.method !== 'string' && id !== undefined) {
      const res = this.waiting.get(id);
      if (res === undefined) return Promise.resolve();
      this.waiting.delete(id);
      res.end(event(message));
      return Promise.resolve();
    }
    // what the server sends unasked goes on the event stream, or waits for the client to open it
    if (this.stream !== undefined) {
      this.stream.write(event(message));
    } else {
      this.held.push(event(message));
      if (this.held.length > MAX_HELD_EVENTS) this.held.shift();
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const res of this.waiting.values()) res.end();
    this.waiting.clear();
    this.stream?.end();
    this.stream = undefined;
    this.held = [];
    this.onclose?.();
    return Promise.resolve();
  }
}
