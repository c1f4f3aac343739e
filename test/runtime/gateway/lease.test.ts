/**
 * A leased route behind the gateway, against the real echo-server fixture and an MCP SDK client
 * standing where Codex stands: the handshake and `tools/list` come from the lease (the server
 * does not start), the first call starts the server, which gets the client's own `initialize`
 * before the call; a request no rule admits is refused without starting it; a process that ends
 * while its server starts leaves no process behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import type { ServerDefinition } from '../../../src/config/registry/types.js';
import type { ServerLease } from '../../../src/config/snapshot/types.js';
import { GatewayHub } from '../../../src/runtime/gateway/gateway-hub.js';
import { leaseProtocolVersion } from '../../../src/runtime/gateway/lease.js';
import type { Route } from '../../../src/runtime/gateway/relay-connection.js';
import { liveDigest } from '../../../src/runtime/gateway/tool-filter.js';
import { connectWithToken } from '../../support/stolen-token.js';
import { tmpDir } from '../../support/tmp.js';
import { ECHO_SERVER, runningEchoServers, waitFor } from '../../support/world.js';

let root: string;
let hub: GatewayHub;
let lease: ServerLease;

function route(process: string, more: string[] = [], leased = true): Route {
  const definition: ServerDefinition = {
    id: 'notes',
    transport: 'stdio',
    command: globalThis.process.execPath,
    args: [
      ECHO_SERVER,
      '--tools',
      'echo,write!',
      '--pid-file',
      join(root, `${process}-pids.txt`),
      '--log-methods',
      join(root, `${process}-methods.jsonl`),
      ...more,
    ],
    enabled_tools: ['echo', 'write'],
    default_tools_approval_mode: 'approve',
  };
  return {
    process,
    role: 'lead',
    server: 'notes',
    definition,
    gate: {
      allowed: new Set(['echo']),
      ...(leased
        ? { pins: lease.tools.map((t) => ({ name: String(t.name), digest: liveDigest(t) })) }
        : {}),
    },
    launch: {
      env: { PATH: globalThis.process.env.PATH ?? '/usr/bin:/bin', HOME: root },
      home: root,
      cwd: root,
      credentials: credentialSourceFrom({}, {}, '/nonexistent/credentials.env', true),
    },
    ...(leased ? { lease } : {}),
  };
}

const starts = (process: string): number => {
  const file = join(root, `${process}-pids.txt`);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
};

const methods = (process: string): Record<string, unknown>[] =>
  readFileSync(join(root, `${process}-methods.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Running echo servers started for `process`. */
const running = (process: string): number => runningEchoServers(join(root, `${process}-pids.txt`));

beforeAll(async () => {
  root = await tmpDir('lease');
  hub = await GatewayHub.start({
    transport: 'http',
    socketPath: join(root, 'unused.sock'),
    callsFile: join(root, 'calls.jsonl'),
    secrets: [],
  });
  // what a pin records: the tools exactly as the server lists them
  const probe = await connectWithToken(hub.url ?? '', hub.addRoute(route('probe', [], false)));
  const listed = await probe.listTools();
  lease = {
    protocol_version: '2025-06-18',
    server_info: { name: 'echo-server', version: '1.0.0' },
    capabilities: { tools: {} },
    instructions: 'FROM-THE-LEASE',
    tools: listed.tools.map((t) => JSON.parse(JSON.stringify(t)) as Record<string, unknown>),
  };
  await hub.closeProcess('probe');
});

afterAll(async () => {
  await hub.close();
});

describe('the protocol version a lease answers', () => {
  it('is the one asked for when the server spoke it or a later one at its pin', () => {
    const pinned = { ...lease, protocol_version: '2025-06-18' };
    expect(leaseProtocolVersion(pinned, '2025-03-26')).toBe('2025-03-26');
    expect(leaseProtocolVersion(pinned, '2025-06-18')).toBe('2025-06-18');
    expect(leaseProtocolVersion(pinned, '2025-11-25')).toBe('2025-06-18');
    expect(leaseProtocolVersion(pinned, 'not-a-version')).toBe('2025-06-18');
    expect(leaseProtocolVersion(pinned, 7)).toBe('2025-06-18');
  });
});

describe('a leased route', () => {
  let client: Client;

  it('answers the handshake and tools/list from the lease, without starting the server', async () => {
    client = await connectWithToken(hub.url ?? '', hub.addRoute(route('root')));
    expect(client.getInstructions()).toBe('FROM-THE-LEASE');
    expect(client.getServerVersion()).toMatchObject({ name: 'echo-server' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    await client.ping();
    expect(starts('root')).toBe(0);
  });

  it("starts the server on the first call, with the client's own initialize", async () => {
    const answer = await client.callTool({ name: 'echo', arguments: { text: 'first' } });
    expect(JSON.stringify(answer.content)).toContain('first');
    expect(starts('root')).toBe(1);
    const seen = methods('root').filter((m) => typeof m.method === 'string');
    expect(seen.map((m) => m.method)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
    ]);
    expect(seen[0]?.params).toMatchObject({ clientInfo: { name: 'codex-stand-in' } });
    // the grant still holds once the server runs
    const refused = await client.callTool({ name: 'write', arguments: { text: 'x' } });
    expect(JSON.stringify(refused.content)).toContain('[tool-not-granted]');
    expect(starts('root')).toBe(1);
  });

  it('refuses a request no rule admits without starting the server, and records it', async () => {
    const idle = await connectWithToken(hub.url ?? '', hub.addRoute(route('refused')));
    const refused = await idle.callTool({ name: 'write', arguments: { text: 'x' } });
    expect(JSON.stringify(refused.content)).toContain('[tool-not-granted]');
    const recorded = (): boolean =>
      readFileSync(join(root, 'calls.jsonl'), 'utf8')
        .split('\n')
        .some(
          (line) => line.includes('"process":"refused"') && line.includes('"tool-not-granted"'),
        );
    await waitFor(recorded, 5000);
    expect(recorded()).toBe(true);
    // a notification no rule forwards is dropped and recorded, not held for the server
    await idle.notification({ method: 'notifications/not-a-method' });
    const dropped = (): boolean =>
      readFileSync(join(root, 'calls.jsonl'), 'utf8')
        .split('\n')
        .some(
          (line) =>
            line.includes('"process":"refused"') &&
            line.includes('"notifications/not-a-method"') &&
            line.includes('"method-not-allowed"'),
        );
    await waitFor(dropped, 5000);
    expect(dropped()).toBe(true);
    // the first admitted request is the one that starts it
    expect(starts('refused')).toBe(0);
    const answer = await idle.callTool({ name: 'echo', arguments: { text: 'now' } });
    expect(JSON.stringify(answer.content)).toContain('now');
    expect(starts('refused')).toBe(1);
    await hub.closeProcess('refused');
  });

  it('stops a server that is still starting when its process ends', async () => {
    const slow = await connectWithToken(
      hub.url ?? '',
      hub.addRoute(route('slow', ['--delay-ms', '3000'])),
    );
    const call = slow.callTool({ name: 'echo', arguments: { text: 'late' } }).catch(() => 'ended');
    await waitFor(() => starts('slow') === 1, 10_000);
    await hub.closeProcess('slow');
    await waitFor(() => running('slow') === 0, 10_000);
    expect(running('slow')).toBe(0);
    void call;
  });
});
