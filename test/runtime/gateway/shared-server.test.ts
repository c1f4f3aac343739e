/**
 * A `shared = true` server behind the gateway, against the real echo-server fixture, reached by
 * MCP SDK clients over the loopback front standing where two Codex processes stand: one instance
 * serves both (one start, one `initialize`), each process still sees and may call only its own
 * grant, concurrent calls with the same request ids get their own answers, every call is recorded
 * with its own process and role, and the server ends with the last process that uses it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readCalls } from '../../../src/runtime/gateway/call-log.js';
import { GatewayHub } from '../../../src/runtime/gateway/gateway-hub.js';
import type { Route } from '../../../src/runtime/gateway/relay-connection.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import type { ServerDefinition } from '../../../src/config/registry/types.js';
import { connectWithToken } from '../../support/stolen-token.js';
import { tmpDir } from '../../support/tmp.js';
import { ECHO_SERVER, runningEchoServers, waitFor } from '../../support/world.js';

let root: string;
let hub: GatewayHub;
const clients: Record<string, Client> = {};

function route(process: string, allowed: string[]): Route {
  const definition: ServerDefinition = {
    id: 'common',
    transport: 'stdio',
    command: globalThis.process.execPath,
    args: [
      ECHO_SERVER,
      '--tools',
      'echo,write!',
      '--delay-ms',
      '300',
      '--pid-file',
      join(root, 'pids.txt'),
      '--log-methods',
      join(root, 'methods.jsonl'),
    ],
    enabled_tools: ['echo', 'write'],
    default_tools_approval_mode: 'approve',
    shared: true,
  };
  return {
    process,
    role: `${process}-role`,
    server: 'common',
    definition,
    gate: { allowed: new Set(allowed) },
    launch: {
      env: { PATH: globalThis.process.env.PATH ?? '/usr/bin:/bin', HOME: root },
      home: root,
      cwd: root,
      credentials: credentialSourceFrom({}, {}, '/nonexistent/credentials.env', true),
    },
  };
}

function connect(token: string): Promise<Client> {
  return connectWithToken(hub.url ?? '', token);
}

const pids = (): number[] =>
  readFileSync(join(root, 'pids.txt'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map(Number);

/** Running processes of this test's server. */
const running = (): number => runningEchoServers(join(root, 'pids.txt'));

beforeAll(async () => {
  root = await tmpDir('shared-server');
  hub = await GatewayHub.start({
    transport: 'http',
    socketPath: join(root, 'unused.sock'),
    callsFile: join(root, 'calls.jsonl'),
    secrets: [],
  });
  const lead = hub.addRoute(route('root', ['echo']), { prestart: true });
  const worker = hub.addRoute(route('worker-1', ['echo', 'write']));
  clients.lead = await connect(lead);
  clients.worker = await connect(worker);
});

afterAll(async () => {
  await hub.close();
});

describe('a shared server', () => {
  it('runs one instance, initialized once, for both processes', () => {
    expect(pids()).toHaveLength(1);
    const methods = readFileSync(join(root, 'methods.jsonl'), 'utf8');
    expect(methods.match(/"method":"initialize"/g)).toHaveLength(1);
    expect(hub.sharedServerIds()).toEqual(['common']);
  });

  it("offers each process only its own grant, and refuses the other's tool", async () => {
    const { lead, worker } = clients;
    expect((await lead?.listTools())?.tools.map((t) => t.name)).toEqual(['echo']);
    expect((await worker?.listTools())?.tools.map((t) => t.name)).toEqual(['echo', 'write']);
    const refused = await lead?.callTool({ name: 'write', arguments: { text: 'x' } });
    expect(refused?.isError).toBe(true);
    expect(JSON.stringify(refused?.content)).toContain('[tool-not-granted]');
  });

  it('answers concurrent calls with the same request ids to the process that made each', async () => {
    const { lead, worker } = clients;
    if (lead === undefined || worker === undefined) throw new Error('no clients');
    const answers = await Promise.all(
      ['a', 'b', 'c'].flatMap((k) => [
        lead.callTool({ name: 'echo', arguments: { text: `lead-${k}` } }),
        worker.callTool({ name: 'echo', arguments: { text: `worker-${k}` } }),
      ]),
    );
    const texts = answers.map((a) => JSON.stringify(a.content));
    ['a', 'b', 'c'].forEach((k, i) => {
      expect(texts[2 * i]).toContain(`lead-${k}`);
      expect(texts[2 * i]).not.toContain('worker-');
      expect(texts[2 * i + 1]).toContain(`worker-${k}`);
      expect(texts[2 * i + 1]).not.toContain('lead-');
    });
    await hub.flush();
    const { calls } = await readCalls(root);
    const ok = calls.filter((c) => c.outcome === 'ok' && c.tool === 'echo');
    expect(ok.filter((c) => c.process === 'root' && c.role === 'root-role')).toHaveLength(3);
    expect(ok.filter((c) => c.process === 'worker-1' && c.role === 'worker-1-role')).toHaveLength(
      3,
    );
  });

  it('keeps serving while a process uses it, and ends with the last', async () => {
    expect(running()).toBe(1);
    await hub.closeProcess('root');
    expect(running()).toBe(1);
    const still = await clients.worker?.callTool({ name: 'write', arguments: { text: 'w' } });
    expect(JSON.stringify(still?.content)).toContain('w');
    await hub.closeProcess('worker-1');
    await waitFor(() => running() === 0, 10_000);
    expect(pids()).toHaveLength(1);
  });
});
