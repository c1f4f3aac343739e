/**
 * A route's per-request clients as one gateway-served transport: it opens with an `initialize`
 * of the client's envelope, carries each request under an id of its own and answers it under the
 * client's, without the envelope; a cancellation names the request by the transport's id; a
 * request of the server is refused, since a per-request client has no stream to receive it.
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
  it('opens a 2025 session from the envelope and answers under the client id', async () => {
    const { session, got } = served();
    const init = await session.open({ params: { _meta: META } });
    expect(init.result).toMatchObject({ serverInfo: { name: 's' } });
    expect(got[0]).toMatchObject({
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
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
      result: { echoed: { _meta: { threadId: 't' } } },
    });
    expect(got[2]?.id).not.toBe(5);
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
