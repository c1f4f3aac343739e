/**
 * The per-request (2026-07-28) revision toward Codex, as pure decisions: which POST speaks it,
 * headers checked against the body, an answer completed as a 2026 client takes it, and
 * `server/discover` made from an `initialize` result.
 */
import { describe, expect, it } from 'vitest';

import {
  discoverResult,
  isPerRequest,
  perRequestAnswer,
  perRequestRefusal,
} from '../../../src/runtime/gateway/per-request.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'codex-mcp-client', version: '0.171.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

function call(name: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, _meta: ENVELOPE } };
}

describe('per-request requests toward Codex', () => {
  it('tells a per-request POST by its header or envelope, never a 2025 one', () => {
    expect(isPerRequest({ 'mcp-protocol-version': '2026-07-28' }, {})).toBe(true);
    expect(isPerRequest({}, call('echo'))).toBe(true);
    expect(isPerRequest({ 'mcp-protocol-version': '2025-06-18' }, { method: 'tools/list' })).toBe(
      false,
    );
    expect(isPerRequest({}, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(false);
  });

  it('checks Mcp-Method and Mcp-Name against the body', () => {
    const ok = { 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
    expect(perRequestRefusal(ok, call('echo'))).toBeUndefined();
    expect(perRequestRefusal({ 'mcp-method': 'tools/call' }, call('echo'))?.message).toContain(
      'Mcp-Name',
    );
    expect(
      perRequestRefusal({ ...ok, 'mcp-method': 'tools/list' }, call('echo'))?.message,
    ).toContain('Mcp-Method');
    expect(perRequestRefusal({ ...ok, 'mcp-name': 'other' }, call('echo'))).toBeDefined();
    const wide = 'écho tool';
    const encoded = `=?base64?${Buffer.from(wide).toString('base64')}?=`;
    expect(perRequestRefusal({ ...ok, 'mcp-name': encoded }, call(wide))).toBeUndefined();
    // a name header on a method that names nothing is refused too
    const list = { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: ENVELOPE } };
    expect(perRequestRefusal({ 'mcp-method': 'tools/list' }, list)).toBeUndefined();
    expect(perRequestRefusal({ 'mcp-method': 'tools/list', 'mcp-name': 'x' }, list)).toBeDefined();
    // a header revision other than the envelope's
    expect(
      perRequestRefusal({ ...ok, 'mcp-protocol-version': '2025-11-25' }, call('echo'))?.code,
    ).toBe(-32022);
  });

  it("completes a session server's answer as a 2026 result, and keeps what the server said", () => {
    const list = { jsonrpc: '2.0', id: 3, result: { tools: [] } };
    expect(perRequestAnswer('tools/list', list).result).toEqual({
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      tools: [],
    });
    const called = { jsonrpc: '2.0', id: 4, result: { content: [] } };
    expect(perRequestAnswer('tools/call', called).result).toEqual({
      resultType: 'complete',
      content: [],
    });
    const asked = { jsonrpc: '2.0', id: 5, result: { resultType: 'input_required', ttlMs: 9 } };
    expect(perRequestAnswer('resources/read', asked).result).toEqual({
      resultType: 'input_required',
      ttlMs: 9,
      cacheScope: 'private',
    });
    const failed = { jsonrpc: '2.0', id: 6, error: { code: -1, message: 'no' } };
    expect(perRequestAnswer('tools/call', failed)).toEqual(failed);
  });

  it('answers server/discover from an initialize result, offering only what the gateway serves', () => {
    const init = {
      protocolVersion: '2025-11-25',
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
        experimental: { anything: {} },
      },
      serverInfo: { name: 'notes', version: '1.2.0' },
      instructions: 'Use notes.',
    };
    expect(discoverResult(init)).toEqual({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {}, resources: {} },
      instructions: 'Use notes.',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'notes', version: '1.2.0' } },
    });
  });
});
