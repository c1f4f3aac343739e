/**
 * Every MCP revision pairing in real `exec` sessions: a root granted servers of the three kinds
 * (the 2025 SDK, SDK v2 serving both eras, SDK v2 serving 2026-07-28 only), each over stdio and
 * over Streamable HTTP, calls one tool of each, with Codex's `mcp_2026_07_28` feature off and on,
 * unpinned (the servers start with Codex) and pinned as optional grants (leased: answered from
 * the pin, started on first use); `profile smoke` receives every server's tool with the feature
 * off and on. Every call reaches its server in the server's own revision.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { startHttpMcpServer, type HttpMcpServer } from '../../support/http-mcp-server.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, profileToml, runInWorld, type World } from '../../support/world.js';

const SDK2 = resolve('test/fixtures/servers/sdk2-server.mjs');
/** Server ids: v1 (2025 SDK), v2 (SDK v2, both eras), mo (2026-07-28 only); s stdio, h HTTP. */
const SERVERS = ['v1s', 'v1h', 'v2s', 'v2h', 'mos', 'moh'] as const;

/** What the SDK v2 stdio server of both eras receives. */
const LOG = 'v2s-methods.jsonl';

let v1http: HttpMcpServer;
const children: ChildProcess[] = [];
const ports: Record<string, string> = {};

function sdk2Http(args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [SDK2, '--http', '--tools', 'note', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return new Promise((done, fail) => {
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const port = /LISTENING (\d+)/.exec(text)?.[1];
      if (port !== undefined) done(port);
    });
    child.on('exit', () => {
      fail(new Error(`the SDK v2 server ended: ${text}`));
    });
  });
}

beforeAll(async () => {
  v1http = await startHttpMcpServer();
  ports.v2h = await sdk2Http([]);
  ports.moh = await sdk2Http(['--modern-only']);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await v1http.close();
});

function http(id: string, url: string): string {
  return [
    '',
    `[tool_mcp_servers.${id}]`,
    'transport = "streamable_http"',
    `url = "${url}"`,
    'enabled_tools = ["note"]',
    'default_tools_approval_mode = "approve"',
    '',
  ].join('\n');
}

function sdk2Stdio(id: string, args: readonly string[]): string {
  return [
    '',
    `[tool_mcp_servers.${id}]`,
    'transport = "stdio"',
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([SDK2, '--tools', 'note', ...args])}`,
    'enabled_tools = ["note"]',
    'default_tools_approval_mode = "approve"',
    '',
  ].join('\n');
}

function registry(root: string): string {
  return [
    echoServer('v1s', { tools: 'note' }),
    http('v1h', v1http.url),
    sdk2Stdio('v2s', ['--log-methods', join(root, LOG)]),
    http('v2h', `http://127.0.0.1:${ports.v2h ?? ''}/mcp`),
    sdk2Stdio('mos', ['--modern-only']),
    http('moh', `http://127.0.0.1:${ports.moh ?? ''}/mcp`),
  ].join('');
}

function script(request: ModelRequest): ScriptedItem[] {
  const next = SERVERS[request.toolOutputs.length];
  if (next !== undefined) {
    const text = `MATRIX-${next}`;
    return [
      { type: 'function_call', namespace: `mcp__${next}`, name: 'note', arguments: { text } },
    ];
  }
  const outputs = request.toolOutputs.map((o) => o.output).join(' || ');
  return [{ type: 'message', text: `LEAD-DONE ${outputs}` }];
}

const grants = (required: boolean): Record<string, { required: boolean; tools: string[] }> =>
  Object.fromEntries(SERVERS.map((id) => [id, { required, tools: ['note'] }]));

const scripted = useScriptedSession(
  { registry, profile: profileToml('matrix', 'lead', { lead: { grants: grants(false) } }) },
  script,
);

/** How the SDK v2 server of both eras was spoken to in the last session: its methods, in order. */
async function v2Methods(world: World): Promise<{ method: string; meta?: object }[]> {
  const text = await readFile(join(world.root, LOG), 'utf8');
  await writeFile(join(world.root, LOG), '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { method: string; meta?: object });
}

const V2026_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };

async function everyCallServed(world: World): Promise<void> {
  const before = scripted.model.requests.length;
  const result = await runInWorld(world, ['exec', world.packDir, 'check']);
  expect(scripted.model.errors).toEqual([]);
  expect(result.code, result.stderr).toBe(0);
  const offered = scripted.model.requests[before]?.offeredTools.mcp ?? {};
  for (const id of SERVERS) {
    expect(offered[id], id).toEqual(['note']);
    expect(result.stdout, id).toContain(`MATRIX-${id}`);
  }
  expect(result.stdout).not.toMatch(/refused|unsupported protocol|revision-mismatch/i);
}

/** `profile smoke` of the pack: every server starts and the lead receives each one's tool. */
async function smokeReceivesAll(world: World): Promise<void> {
  const result = await runInWorld(world, ['profile', 'smoke', world.packDir, '--json']);
  const report = JSON.parse(result.stdout) as {
    ok: boolean;
    roles: Record<string, { received: Record<string, string[]> }>;
  };
  expect(report.ok, result.stdout + result.stderr).toBe(true);
  const received = report.roles.lead?.received ?? {};
  for (const id of SERVERS) expect(received[id], id).toEqual(['note']);
}

async function featureOn(world: World): Promise<void> {
  const base = join(world.configDir, 'codex-base.toml');
  if (!(await readFile(base, 'utf8')).includes('mcp_2026_07_28')) {
    await appendFile(base, '\n[features]\nmcp_2026_07_28 = true\n');
  }
}

describe('servers of every MCP revision, over stdio and HTTP, through the gateway', () => {
  it('serve their tools to Codex with mcp_2026_07_28 off', async () => {
    await smokeReceivesAll(scripted.world);
    await v2Methods(scripted.world);
    await everyCallServed(scripted.world);
    // a 2025 client: a server of both eras is spoken to in a 2025 session
    const methods = await v2Methods(scripted.world);
    expect(methods[0]?.method).toBe('initialize');
    expect(methods.map((m) => m.method)).not.toContain('server/discover');
  });

  it('serve them the same with mcp_2026_07_28 on', async () => {
    await featureOn(scripted.world);
    await smokeReceivesAll(scripted.world);
    await v2Methods(scripted.world);
    await everyCallServed(scripted.world);
    // a 2026 client: a server of both eras is spoken to in 2026-07-28, end to end
    const methods = await v2Methods(scripted.world);
    expect(methods[0]?.method).toBe('server/discover');
    expect(methods.map((m) => m.method)).not.toContain('initialize');
    const call = methods.find((m) => m.method === 'tools/call');
    expect(call?.meta).toMatchObject(V2026_META);
  });

  it('serve them when leased from their pins, the feature on', async () => {
    for (const id of SERVERS) {
      const pinned = await runInWorld(scripted.world, ['tool-mcp', 'pin', id]);
      expect(pinned.code, pinned.stderr).toBe(0);
    }
    await everyCallServed(scripted.world);
  });
});
