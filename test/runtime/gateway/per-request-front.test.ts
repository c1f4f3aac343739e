/**
 * The gateway's HTTP front toward a client of MCP 2026-07-28 (no session, the `_meta` envelope,
 * `Mcp-Method`/`Mcp-Name` headers), against real servers: `server/discover` answered from the
 * route's server, tools listed and called through a gateway-opened session of a 2025 server (the
 * envelope never reaches it, the caller's thread does), headers that disagree with the body
 * (`Mcp-Param-*` included) refused with the request's id and -32020, removed methods not found,
 * and an `input_required` answer passed to the 2026 client but refused to a 2025 session client,
 * naming both revisions.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { readCalls } from '../../../src/runtime/gateway/call-log.js';
import type { CallRecord } from '../../../src/runtime/gateway/call-record.js';
import { GatewayHub } from '../../../src/runtime/gateway/gateway-hub.js';
import type { Route } from '../../../src/runtime/gateway/relay-connection.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import type { ServerDefinition } from '../../../src/config/registry/types.js';
import { tmpDir } from '../../support/tmp.js';
import { ECHO_SERVER, waitFor } from '../../support/world.js';

const CANARY = 'per-request-canary-5c1d';
const V2026 = '2026-07-28';

let root: string;
let hub: GatewayHub;
let url: string;
let seen: string;
const tokens: Record<string, string> = {};
const credentials = credentialSourceFrom(
  { ECHO_CRED: CANARY },
  {},
  '/nonexistent/credentials.env',
  true,
);

/** A line-JSON MCP server that logs what it receives and answers `tools/call` with input_required. */
const ASKING_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  require('node:fs').appendFileSync(process.argv[1], line + '\\n');
  if (m.id === undefined) return;
  const send = (result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
  if (m.method === 'initialize') send({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'asker', version: '1' }, instructions: 'ask first' });
  else if (m.method === 'tools/list') send({ tools: [{ name: 'ask', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }, { name: 'weird', inputSchema: { type: 'object' } }] });
  else if (m.method === 'tools/call' && m.params.name === 'weird') send({ resultType: 'input_required', inputRequests: { x: { method: 'tools/call', params: { name: 'other' } } } });
  else if (m.method === 'tools/call') send({ resultType: 'input_required', inputRequests: { ok: { method: 'elicitation/create', params: { message: 'sure?' } } } });
  else process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } }) + '\\n');
});`;

function route(process: string, server: string, definition: ServerDefinition): Route {
  return {
    process,
    role: `${process}-role`,
    server,
    definition,
    gate: { allowed: new Set(definition.enabled_tools) },
    launch: {
      env: { PATH: globalThis.process.env.PATH ?? '/usr/bin:/bin', HOME: root },
      home: root,
      cwd: root,
      credentials,
    },
  };
}

function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': V2026,
    'io.modelcontextprotocol/clientInfo': { name: 'codex-mcp-client', version: '0.171.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function post(
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V2026,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  root = await tmpDir('per-request-front');
  seen = join(root, 'seen.jsonl');
  appendFileSync(seen, '');
  hub = await GatewayHub.start({
    transport: 'http',
    socketPath: join(root, 'unused.sock'),
    callsFile: join(root, 'calls.jsonl'),
    secrets: [CANARY],
  });
  url = hub.url ?? '';
  tokens.echo = hub.addRoute(
    route('root', 'echo', {
      id: 'echo',
      transport: 'stdio',
      command: globalThis.process.execPath,
      args: [ECHO_SERVER, '--tools', 'echo,hidden'],
      env_vars: ['ECHO_CRED'],
      enabled_tools: ['echo'],
      default_tools_approval_mode: 'approve',
    }),
  );
  tokens.asker = hub.addRoute(
    route('root', 'asker', {
      id: 'asker',
      transport: 'stdio',
      command: globalThis.process.execPath,
      args: ['-e', ASKING_SERVER, seen],
      enabled_tools: ['ask', 'weird'],
      default_tools_approval_mode: 'approve',
    }),
  );
});

afterAll(async () => {
  await hub.close();
});

describe('the HTTP front toward MCP 2026-07-28 clients', () => {
  it('answers server/discover with the revisions, serverInfo, capabilities and instructions of the server', async () => {
    const answer = await post(
      tokens.asker ?? '',
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } },
      { 'mcp-method': 'server/discover' },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(1);
    const result = answer.body.result as Record<string, unknown>;
    expect(result.supportedVersions).toEqual([V2026]);
    expect(result.capabilities).toEqual({ tools: {} });
    expect(result.instructions).toBe('ask first');
    expect(result._meta).toEqual({
      'io.modelcontextprotocol/serverInfo': { name: 'asker', version: '1' },
    });
  });

  it('lists and calls granted tools without a session; the envelope never reaches the server', async () => {
    const list = await post(
      tokens.echo ?? '',
      { jsonrpc: '2.0', id: 'l1', method: 'tools/list', params: { _meta: envelope() } },
      { 'mcp-method': 'tools/list' },
    );
    expect(list.body.id).toBe('l1');
    const tools = (list.body.result as { tools: { name: string }[] }).tools;
    expect(tools.map((t) => t.name)).toEqual(['echo']);
    const call = await post(
      tokens.echo ?? '',
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'hi' }, _meta: envelope({ threadId: 't-1' }) },
      },
      { 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    );
    expect(call.body.id).toBe(7);
    expect(JSON.stringify(call.body.result)).toContain('hi');
    const refused = await post(
      tokens.echo ?? '',
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'hidden', arguments: {}, _meta: envelope() },
      },
      { 'mcp-method': 'tools/call', 'mcp-name': 'hidden' },
    );
    expect(JSON.stringify(refused.body.result)).toContain('[tool-not-granted]');
    // the asker server (of a 2025 session) logs what reaches it: past the server/discover it did
    // not answer, a session, never the envelope
    await post(
      tokens.asker ?? '',
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        params: { _meta: envelope({ threadId: 'x' }) },
      },
      { 'mcp-method': 'tools/list' },
    );
    const received = readFileSync(seen, 'utf8')
      .split('\n')
      .filter((l) => l !== '' && !l.includes('"server/discover"'))
      .join('\n');
    expect(received).toContain('"method":"initialize"');
    expect(received).toContain('"threadId":"x"');
    expect(received).not.toContain('io.modelcontextprotocol/');
  });

  it('refuses headers that disagree with the body, with the request id', async () => {
    const method = await post(
      tokens.echo ?? '',
      { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'echo', _meta: envelope() } },
      { 'mcp-method': 'tools/list', 'mcp-name': 'echo' },
    );
    expect(method.status).toBe(400);
    expect(method.body.id).toBe(21);
    expect(JSON.stringify(method.body.error)).toContain('[header-mismatch]');
    const name = await post(
      tokens.echo ?? '',
      { jsonrpc: '2.0', id: 22, method: 'tools/call', params: { name: 'echo', _meta: envelope() } },
      { 'mcp-method': 'tools/call', 'mcp-name': 'hidden' },
    );
    expect(name.status).toBe(400);
    expect(name.body.id).toBe(22);
    const version = await post(
      tokens.echo ?? '',
      { jsonrpc: '2.0', id: 23, method: 'tools/list', params: {} },
      { 'mcp-method': 'tools/list', 'mcp-protocol-version': '2027-01-01' },
    );
    expect(version.body.id).toBe(23);
    expect((version.body.error as { code: number }).code).toBe(-32022);
  });

  it('refuses a session-less request of no revision with its id, not null', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.echo ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 31, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { id: unknown }).id).toBe(31);
  });

  it('passes an input_required answer to the 2026 client, recorded as a call that goes on', async () => {
    const call = await post(
      tokens.asker ?? '',
      {
        jsonrpc: '2.0',
        id: 41,
        method: 'tools/call',
        params: { name: 'ask', arguments: {}, _meta: envelope() },
      },
      { 'mcp-method': 'tools/call', 'mcp-name': 'ask' },
    );
    expect(call.body.id).toBe(41);
    expect(call.body.result).toMatchObject({ resultType: 'input_required' });
    const ask = await callRecord('ask');
    expect(ask?.outcome).toBe('ok');
    expect(ask?.reason).toBe('input-required');
  });

  it('refuses an input_required answer asking for what no rule passes to Codex', async () => {
    const call = await post(
      tokens.asker ?? '',
      {
        jsonrpc: '2.0',
        id: 45,
        method: 'tools/call',
        params: { name: 'weird', arguments: {}, _meta: envelope() },
      },
      { 'mcp-method': 'tools/call', 'mcp-name': 'weird' },
    );
    expect(call.body.result).toBeUndefined();
    expect((call.body.error as { message: string }).message).toContain("asked for 'tools/call'");
  });

  it('refuses an input_required answer to a 2025 session client, naming both revisions', async () => {
    const client = new Client({ name: 'session-client', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${tokens.asker ?? ''}` } },
      }),
    );
    const failed = await client.callTool({ name: 'ask', arguments: {} }).then(
      () => 'answered',
      (error: unknown) => String(error),
    );
    await client.close();
    expect(failed).toContain('2026-07-28');
    expect(failed).toContain('2025-11-25');
    // the record is appended as the answer goes out: looked for until it is there
    const recorded = async (): Promise<boolean> =>
      (await readCalls(root)).calls.some(
        (c) => c.tool === 'ask' && c.outcome === 'error' && c.reason === 'input-required',
      );
    await waitFor(recorded, 10_000);
    expect(await recorded()).toBe(true);
  });

  it('validates Mcp-Param headers against the arguments of a tool that declares them', async () => {
    const listed = await post(
      tokens.asker ?? '',
      { jsonrpc: '2.0', id: 51, method: 'tools/list', params: { _meta: envelope() } },
      { 'mcp-method': 'tools/list' },
    );
    expect(JSON.stringify(listed.body.result)).toContain('x-mcp-header');
    const callWith = (id: number, headers: Record<string, string>) =>
      post(
        tokens.asker ?? '',
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'ask', arguments: { region: 'eu-west' }, _meta: envelope() },
        },
        { 'mcp-method': 'tools/call', 'mcp-name': 'ask', ...headers },
      );
    for (const [id, headers] of [
      [52, {}],
      [53, { 'mcp-param-region': 'us-east' }],
      [54, { 'mcp-param-region': '=?base64?ZXUtd2VzdA?=' }],
    ] as const) {
      const refused = await callWith(id, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(400);
      expect(refused.body.id).toBe(id);
      expect((refused.body.error as { code: number }).code).toBe(-32020);
    }
    const plain = await callWith(55, { 'mcp-param-region': 'eu-west' });
    expect(plain.status).toBe(200);
    const encoded = await callWith(56, { 'mcp-param-region': '=?base64?ZXUtd2VzdA==?=' });
    expect(encoded.status).toBe(200);
  });

  it('answers the methods 2026-07-28 removed, and an envelope without capabilities, with 4xx', async () => {
    const ping = await post(
      tokens.echo ?? '',
      { jsonrpc: '2.0', id: 61, method: 'ping', params: { _meta: envelope() } },
      { 'mcp-method': 'ping' },
    );
    expect(ping.status).toBe(404);
    expect((ping.body.error as { code: number }).code).toBe(-32601);
    const bare = await post(
      tokens.echo ?? '',
      {
        jsonrpc: '2.0',
        id: 62,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V2026 } },
      },
      { 'mcp-method': 'tools/list' },
    );
    expect(bare.status).toBe(400);
    expect((bare.body.error as { code: number }).code).toBe(-32602);
  });
});

/** The calls-log record of `tool`, waited for: the log is written as the answer goes out. */
async function callRecord(tool: string): Promise<CallRecord | undefined> {
  for (let waited = 0; waited < 3000; waited += 50) {
    const { calls } = await readCalls(root);
    const found = calls.find((c) => c.server === 'asker' && c.tool === tool);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}
