/**
 * A route's per-request clients as one gateway-served transport: it opens with an `initialize`
 * of the client's revision and envelope, carries each request under an id of its own (envelope
 * kept, for the upstream to keep or remove) and answers it under the client's as a 2026 result;
 * a cancellation names the request by the transport's id; progress reaches the request that asked
 * for it; a request of the server is refused, since a per-request client has no stream for it.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

import { PerRequestSession } from '../../../src/runtime/gateway/per-request-session.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'codex-mcp-client', version: '0.171.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

/** A session whose server side answers every request with its params, recording what it got. */
function served(): { session: PerRequestSession; got: Record<string, unknown>[] } {
  const session = new PerRequestSession();
  const got: Record<string, unknown>[] = [];
  session.onmessage = (message: JSONRPCMessage) => {
    const m = message as Record<string, unknown>;
    got.push(m);
    if (typeof m.method !== 'string' || m.id === undefined) return;
    if (m.method === 'tools/call' && (m.params as { name?: string }).name === 'slow') return;
    const result =
      m.method === 'initialize'
        ? {
            protocolVersion: '2025-11-25',
            capabilities: {},
            serverInfo: { name: 's', version: '1' },
          }
        : { echoed: m.params };
    void session.send({ jsonrpc: '2.0', id: m.id as string | number, result });
  };
  return { session, got };
}

describe('PerRequestSession', () => {
  it('opens in the client revision from the envelope and answers under the client id', async () => {
    const { session, got } = served();
    const init = await session.open({ params: { _meta: META } });
    expect(init.result).toMatchObject({ serverInfo: { name: 's' } });
    expect(got[0]).toMatchObject({
      method: 'initialize',
      params: {
        protocolVersion: '2026-07-28',
        clientInfo: { name: 'codex-mcp-client' },
        capabilities: { elicitation: {} },
      },
    });
    expect(got[1]).toMatchObject({ method: 'notifications/initialized' });
    const answer = await session.request({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/list',
      params: { _meta: { ...META, threadId: 't' } },
    });
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: {
        resultType: 'complete',
        ttlMs: 0,
        cacheScope: 'private',
        echoed: { _meta: { ...META, threadId: 't' } },
      },
    });
    expect(got[2]?.id).not.toBe(5);
  });

  it('passes progress to the request whose token it carries, and no other', async () => {
    const { session, got } = served();
    await session.open({});
    const seen: unknown[] = [];
    const pending = session.request(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'slow', _meta: { progressToken: 'p7' } },
      },
      (n) => seen.push(n),
    );
    const progress = (token: string): JSONRPCMessage => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token, progress: 1 },
    });
    await session.send(progress('p7'));
    await session.send(progress('other'));
    expect(seen).toEqual([progress('p7')]);
    await session.send({ jsonrpc: '2.0', id: got.at(-1)?.id as string, result: { content: [] } });
    expect((await pending).result).toMatchObject({ resultType: 'complete', content: [] });
    // once answered, the request hears nothing more
    await session.send(progress('p7'));
    expect(seen).toHaveLength(1);
  });

  it('names a cancelled request by its own id, and refuses the server’s requests', async () => {
    const { session, got } = served();
    await session.open({});
    const pending = session.request({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'slow' },
    });
    const sent = got.at(-1);
    session.notify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } });
    expect(got.at(-1)).toMatchObject({ params: { requestId: sent?.id } });
    // a cancellation of nothing in flight goes nowhere
    const count = got.length;
    session.notify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 77 },
    });
    expect(got.length).toBe(count);
    await session.send({ jsonrpc: '2.0', id: 'srv-1', method: 'elicitation/create', params: {} });
    expect(got.at(-1)).toMatchObject({ id: 'srv-1', error: { code: -32601 } });
    await session.close();
    expect((await pending).error).toBeDefined();
  });
});
