/**
 * A real server on MCP 2026-07-28 (SDK v2, serving only that revision) reached through
 * `openUpstream` by a 2025 session client (SDK v1): the handshake falls back to `server/discover`,
 * every request carries the `_meta` envelope (and, over HTTP, the per-request headers), and an
 * `input_required` answer is refused with an error naming both revisions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';

import { startHttpMcpServer } from '../../support/http-mcp-server.js';
import { stripEnvelope } from '../../../src/runtime/upstream/revision-transport.js';
import {
  clientTransport,
  openUpstream,
  type Upstream,
} from '../../../src/runtime/upstream/upstream.js';

const SERVER = resolve('test/fixtures/servers/sdk2-server.mjs');
const ECHO_SERVER = resolve('test/fixtures/servers/echo-server.mjs');

interface Logged {
  readonly method: string;
  readonly meta?: Record<string, unknown>;
  readonly headers?: Record<string, string | undefined>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function logFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mmo-rev-'));
  cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return join(dir, 'methods.jsonl');
}

function logged(file: string): Logged[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Logged);
}

async function httpServer(args: string[]): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [SERVER, '--http', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  const port = await new Promise<string>((done, fail) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /LISTENING (\d+)/.exec(text);
      if (found?.[1] !== undefined) done(found[1]);
    });
    child.on('exit', () => {
      fail(new Error(`server exited: ${text}`));
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

async function connect(upstream: Upstream): Promise<Client> {
  cleanups.push(() => upstream.stop());
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  await client.connect(clientTransport(upstream));
  return client;
}

async function exercise(upstream: Upstream): Promise<Client> {
  const client = await connect(upstream);
  expect(upstream.revision()).toBe('2026-07-28');
  expect(client.getServerVersion()).toMatchObject({ name: 'modern' });
  expect(client.getInstructions()).toBe('use echo');
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['confirm', 'echo']);
  const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  expect(JSON.stringify(echoed.content)).toContain('\\"text\\":\\"hi\\"');
  const asked = await client.callTool({ name: 'confirm', arguments: { text: 'x' } }).then(
    () => 'answered',
    (error: unknown) => String(error),
  );
  expect(asked).toContain('upstream-revision-mismatch');
  expect(asked).toContain('2026-07-28');
  return client;
}

const MODERN = ['--modern-only', '--name', 'modern', '--tools', 'echo,confirm'];

describe('RevisionTransport over a real 2026-07-28 server', () => {
  it('opens a stdio server with server/discover and sends the envelope on every request', async () => {
    const log = logFile();
    const upstream = await openUpstream({
      transport: 'stdio',
      command: process.execPath,
      args: [SERVER, ...MODERN, '--instructions', 'use echo', '--log-methods', log],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
    });
    await exercise(upstream);
    const methods = logged(log);
    expect(methods[0]?.method).toBe('initialize');
    expect(methods[1]?.method).toBe('server/discover');
    const after = methods.slice(2);
    expect(after.map((m) => m.method)).not.toContain('notifications/initialized');
    expect(after.map((m) => m.method)).toContain('tools/call');
    for (const m of after) {
      expect(m.meta?.['io.modelcontextprotocol/protocolVersion'], m.method).toBe('2026-07-28');
    }
  });

  it('sends the per-request headers to a Streamable HTTP server', async () => {
    const log = logFile();
    const url = await httpServer([...MODERN, '--instructions', 'use echo', '--log-methods', log]);
    const upstream = await openUpstream({ transport: 'streamable_http', url, headers: {} });
    await exercise(upstream);
    const call = logged(log).find((m) => m.method === 'tools/call');
    expect(call?.headers).toMatchObject({
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'mcp-protocol-version': '2026-07-28',
    });
    expect(call?.headers?.['mcp-session-id']).toBeUndefined();
  });

  it('keeps a 2025 session with a server that still serves initialize', async () => {
    const log = logFile();
    const upstream = await openUpstream({
      transport: 'stdio',
      command: process.execPath,
      args: [SERVER, '--name', 'modern', '--tools', 'echo', '--log-methods', log],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
    });
    const client = await connect(upstream);
    expect(upstream.revision()).not.toBe('2026-07-28');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(logged(log).map((m) => m.method)).not.toContain('server/discover');
  });
});

type Message = Record<string, unknown>;

/** The upstream's own transport as a request function (what the gateway's relay sends). */
function rawClient(upstream: Upstream): (message: Message) => Promise<Message> {
  cleanups.push(() => upstream.stop());
  const waiting = new Map<unknown, (m: Message) => void>();
  upstream.transport.onmessage = (m) => {
    const message = m as Message;
    const settle = waiting.get(message.id);
    waiting.delete(message.id);
    settle?.(message);
  };
  return (message) =>
    new Promise((settle) => {
      waiting.set(message.id, settle);
      void upstream.transport.send(message as never);
    });
}

const V2026 = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientInfo': { name: 'codex-mcp-client', version: '0.171.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};
const OPEN_2026 = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: V2026,
    capabilities: { elicitation: {} },
    clientInfo: { name: 'codex-mcp-client', version: '0.171.0' },
  },
};

function callOf(id: number, name: string): Message {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: { text: 'x' }, _meta: { ...ENVELOPE, threadId: 't1' } },
  };
}

describe('RevisionTransport for a user of MCP 2026-07-28 (the gateway of a 2026 client)', () => {
  it('asks a server of both eras server/discover first and passes input_required through', async () => {
    const log = logFile();
    const upstream = await openUpstream({
      transport: 'stdio',
      command: process.execPath,
      args: [SERVER, '--name', 'both', '--tools', 'echo,confirm', '--log-methods', log],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
    });
    const send = rawClient(upstream);
    const opened = await send(OPEN_2026);
    expect(opened.result).toMatchObject({ protocolVersion: V2026, serverInfo: { name: 'both' } });
    expect(upstream.revision()).toBe(V2026);
    const asked = await send(callOf(2, 'confirm'));
    expect(asked.result).toMatchObject({ resultType: 'input_required' });
    const methods = logged(log);
    expect(methods.map((m) => m.method)).toEqual(['server/discover', 'tools/call']);
    // the client's own envelope went on, its capabilities included, with the thread kept
    expect(methods[1]?.meta).toMatchObject({ ...ENVELOPE, threadId: 't1' });
  });

  it('falls back to a 2025 session with a server of the 2025 SDK over stdio', async () => {
    const log = logFile();
    const upstream = await openUpstream({
      transport: 'stdio',
      command: process.execPath,
      args: [ECHO_SERVER, '--tools', 'echo', '--log-methods', log],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
    });
    const send = rawClient(upstream);
    const opened = await send(OPEN_2026);
    expect(opened.result).toMatchObject({ protocolVersion: '2025-11-25' });
    expect(upstream.revision()).toBe('2025-11-25');
    const called = await send(callOf(2, 'echo'));
    expect(called.result).toMatchObject({ content: [{ type: 'text' }] });
    const methods = logged(log);
    expect(methods.map((m) => m.method)).toEqual(['server/discover', 'initialize', 'tools/call']);
    // past its refused server/discover, a session server never gets the 2026 envelope
    expect(JSON.stringify(methods.slice(1))).not.toContain('io.modelcontextprotocol/');
  });

  it('falls back to a 2025 session with a server of the 2025 SDK over HTTP', async () => {
    const server = await startHttpMcpServer();
    cleanups.push(() => server.close());
    const upstream = await openUpstream({
      transport: 'streamable_http',
      url: server.url,
      headers: {},
    });
    const send = rawClient(upstream);
    const opened = await send(OPEN_2026);
    expect(opened.result).toMatchObject({ protocolVersion: '2025-11-25' });
    const called = await send(callOf(2, 'note'));
    expect(called.result).toMatchObject({ content: [{ type: 'text' }] });
    expect(server.calls.length).toBe(1);
  });

  it('removes the envelope and keeps the rest of _meta for a session server', () => {
    const stripped = stripEnvelope(callOf(1, 'echo'));
    expect(stripped.params).toEqual({
      name: 'echo',
      arguments: { text: 'x' },
      _meta: { threadId: 't1' },
    });
    expect(stripEnvelope({ jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
  });
});
