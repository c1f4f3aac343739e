/**
 * The gateway's loopback HTTP front under a flood of idle TCP connections, as a hostile shell
 * with network opens them: at most the cap of connections that sent no request with a known
 * token stay open, each is closed when its time runs out, the flood is reported once, and the
 * route's own client (a real MCP SDK client and server) is served during the flood, its
 * keep-alive connection and its event stream kept open past that time.
 */
import { Agent, request, type IncomingMessage } from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ListenerFlood } from '../../../src/foundation/process/connection-limits.js';
import { HttpFront } from '../../../src/runtime/gateway/http-front.js';
import { flood, sleep } from '../../support/flood.js';
import { waitFor } from '../../support/world.js';
import { connectWithToken } from '../../support/stolen-token.js';

const TOKEN = 'flood-test-token-0123456789abcdef';
const CAP = 16;
const TIMEOUT_MS = 200;

let front: HttpFront;
let timed: HttpFront;
const floods: { listener: string; limit: number }[] = [];
let live: ListenerFlood | undefined;

function frontWith(authTimeoutMs: number): Promise<HttpFront> {
  return HttpFront.listen({
    lookup: (token) => (token === TOKEN ? { process: 'root', server: 'notes' } : undefined),
    ended: () => false,
    admitPeer: () => true,
    boundPeer: () => ({}),
    open: async (_route, transport) => {
      const server = new McpServer({ name: 'flood-notes', version: '1' });
      server.registerTool('ping', { description: 'answers pong' }, () => ({
        content: [{ type: 'text', text: 'pong' }],
      }));
      await server.connect(transport);
      return true;
    },
    refused: () => undefined,
    limits: {
      maxPending: CAP,
      authTimeoutMs,
      onFlood: (f) => {
        live = f;
        floods.push({ listener: f.listener, limit: f.limit });
      },
    },
  });
}

beforeAll(async () => {
  front = await frontWith(60_000);
  timed = await frontWith(TIMEOUT_MS);
});

afterAll(async () => {
  await front.close();
  await timed.close();
});

describe('the HTTP front under a flood of idle connections', () => {
  it('keeps at most the cap open and serves its own client during the flood', async () => {
    const idle = flood(front.port);
    await idle.more(300);
    // the kernel completes a connection before the front accepts it: wait for the front
    await waitFor(() => idle.closed() >= 300 - CAP, 5_000);
    expect(idle.open()).toBe(CAP);
    expect(floods).toEqual([{ listener: 'gateway-http', limit: CAP }]);
    // the route's own client, while the flood goes on: 200 new connections a second, so the
    // client's own is among the cap's newest for 80 ms (the flood runs in the client's event
    // loop here: a faster one starves the client of the turns it needs to send its request)
    const keepFlooding = setInterval(() => {
      void idle.more(4);
    }, 20);
    try {
      const client = await connectWithToken(front.url, TOKEN);
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['ping']);
      const answer = await client.callTool({ name: 'ping', arguments: {} });
      expect(answer.content).toEqual([{ type: 'text', text: 'pong' }]);
      await client.close();
    } finally {
      clearInterval(keepFlooding);
    }
    // the last connections the flood opened are closed as the front accepts them
    await waitFor(() => idle.open() <= CAP, 5_000);
    expect(idle.open()).toBeLessThanOrEqual(CAP);
    expect(live?.closed).toBeGreaterThanOrEqual(300 - CAP);
    expect(floods).toHaveLength(1);
    idle.end();
  }, 120_000);

  it('closes an idle connection when its time runs out, and keeps its client past it', async () => {
    const client = await connectWithToken(timed.url, TOKEN);
    await client.listTools();
    const idle = flood(timed.port);
    await idle.more(10);
    await waitFor(() => idle.closed() === 10, 2_000);
    expect(idle.open()).toBe(0);
    // authenticated: its keep-alive connection and session outlast the time to authenticate
    await sleep(TIMEOUT_MS * 3);
    const answer = await client.callTool({ name: 'ping', arguments: {} });
    expect(answer.content).toEqual([{ type: 'text', text: 'pong' }]);
    await client.close();
    idle.end();
  });

  it('keeps an open event stream and the idle keep-alive connection of its client', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const init = await post(agent, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      },
    });
    const session = init.headers['mcp-session-id'];
    expect(typeof session).toBe('string');
    init.resume();
    await new Promise((resolve) => init.on('end', resolve));
    await sleep(TIMEOUT_MS * 3);
    // the same authenticated connection, reused after the time to authenticate
    const again = await post(
      agent,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      String(session),
    );
    expect(again.statusCode).toBe(202);
    expect(reused.get(again)).toBe(true);
    again.resume();
    agent.destroy();
    const stream = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(timed.url, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          accept: 'text/event-stream',
          'mcp-session-id': String(session),
        },
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    });
    expect(stream.statusCode).toBe(200);
    let ended = false;
    stream.on('close', () => {
      ended = true;
    });
    stream.resume();
    await sleep(TIMEOUT_MS * 5);
    expect(ended).toBe(false);
    stream.destroy();
  });
});

/** Whether a response came on a connection the agent had used before. */
const reused = new WeakMap<IncomingMessage, boolean>();

function post(agent: Agent, body: unknown, session?: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(timed.url, {
      method: 'POST',
      agent,
      headers: {
        ...(session !== undefined ? { 'mcp-session-id': session } : {}),
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    req.on('response', (res) => {
      reused.set(res, req.reusedSocket);
      resolve(res);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
