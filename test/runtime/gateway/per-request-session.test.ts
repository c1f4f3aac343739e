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

  it('passes progress to the request that asked for it, under its own token, and no other', async () => {
    const { session, got } = served();
    await session.open({});
    const seen: Record<string, unknown[]> = { a: [], b: [] };
    // two threads that chose the same id and the same progress token
    const call = (who: 'a' | 'b') =>
      session.request(
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'slow', _meta: { progressToken: 'p7' } },
        },
        (n) => seen[who]?.push(n),
      );
    const first = call('a');
    const sentA = got.at(-1) as { id: string; params: { _meta: { progressToken: string } } };
    const second = call('b');
    const sentB = got.at(-1) as { id: string; params: { _meta: { progressToken: string } } };
    // the server sees a token of the gateway's for each, never the client's
    expect(sentA.params._meta.progressToken).toBe(sentA.id);
    expect(sentB.params._meta.progressToken).toBe(sentB.id);
    const progress = (token: string): JSONRPCMessage => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token, progress: 1 },
    });
    await session.send(progress(sentB.id));
    await session.send(progress('p7'));
    expect(seen.a).toEqual([]);
    expect(seen.b).toEqual([progress('p7')]);
    // a cancellation of the id both share cancels neither
    const before = got.length;
    session.notify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    expect(got.length).toBe(before);
    await session.send({ jsonrpc: '2.0', id: sentA.id, result: { content: [] } });
    await session.send({ jsonrpc: '2.0', id: sentB.id, result: { content: [] } });
    expect((await first).result).toMatchObject({ resultType: 'complete', content: [] });
    await second;
    // once answered, the request hears nothing more
    await session.send(progress(sentB.id));
    expect(seen.b).toHaveLength(1);
  });

  it('tells the server a request is cancelled once its client goes away', async () => {
    const { session, got } = served();
    await session.open({});
    const gone = new AbortController();
    const pending = session.request(
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'slow' } },
      undefined,
      gone.signal,
    );
    const sent = got.at(-1) as { id: string };
    gone.abort();
    expect(got.at(-1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: sent.id },
    });
    await session.send({ jsonrpc: '2.0', id: sent.id, result: { content: [] } });
    await pending;
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
