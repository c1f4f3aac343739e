/**
 * One MCP session over loopback HTTP on plain node:http: a request is answered on an event stream
 * of its own that ends with the response of its id, a notification gets 202, what the server sends unasked goes on the GET event
 * stream (kept until the stream opens), a batch, a second stream, a GET that does not accept events and a duplicate pending id
 * are refused, and DELETE ends the session.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HttpSessionTransport } from '../../../src/runtime/gateway/http-session.js';

let server: Server;
let url: string;
const transport = new HttpSessionTransport();
const received: JSONRPCMessage[] = [];
let closed = false;

/** The one message of a request's event stream. */
async function answer(res: Response): Promise<unknown> {
  const text = await res.text();
  expect(text).toMatch(/^event: message\ndata: .*\n\n$/);
  return JSON.parse(text.slice('event: message\ndata: '.length)) as unknown;
}

const post = (body: unknown): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  transport.onmessage = (message) => {
    received.push(message);
    const m = message as { id?: number; method?: string };
    // answers `ping` at once, and `slow` only when told
    if (m.method === 'ping' && m.id !== undefined) {
      void transport.send({ jsonrpc: '2.0', id: m.id, result: {} });
    }
  };
  transport.onclose = () => {
    closed = true;
  };
  server = createServer((req, res) => {
    void transport.handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/mcp`;
});

afterAll(() => {
  server.close();
});

describe('an HTTP session', () => {
  it('answers a request on its own event stream, naming the session', async () => {
    const res = await post({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('mcp-session-id')).toBe(transport.sessionId);
    expect(await answer(res)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('accepts a notification with 202 and refuses a batch and a duplicate pending id', async () => {
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    expect(received.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const batch = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(batch.status).toBe(400);
    const slow = post({ jsonrpc: '2.0', id: 9, method: 'slow' });
    await new Promise((r) => setTimeout(r, 100));
    expect((await post({ jsonrpc: '2.0', id: 9, method: 'slow' })).status).toBe(409);
    await transport.send({ jsonrpc: '2.0', id: 9, result: { done: true } });
    expect(await answer(await slow)).toEqual({ jsonrpc: '2.0', id: 9, result: { done: true } });
  });

  it('sends what the server says unasked on the one event stream, kept until it opens', async () => {
    expect((await fetch(url)).status).toBe(406);
    // sent before the client opened its stream: delivered when it does
    await transport.send({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} });
    const stream = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    expect((await fetch(url, { headers: { accept: 'text/event-stream' } })).status).toBe(409);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const reader = stream.body?.getReader();
    let text = '';
    while (!text.includes('list_changed')) {
      const chunk = (await reader?.read()) as { value?: Uint8Array } | undefined;
      text += new TextDecoder().decode(chunk?.value);
    }
    expect(text).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{}}\n\n' +
        'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n',
    );
    await reader?.cancel();
  });

  it('ends the session on DELETE', async () => {
    const res = await fetch(url, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(closed).toBe(true);
    expect((await post({ jsonrpc: '2.0', id: 8, method: 'ping' })).status).toBe(404);
  });
});
