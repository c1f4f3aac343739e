/**
 * The gateway once the session is ending, with a real relay process and the echo-server fixture:
 * a request that arrives after `beginStop` never reaches the server — a `tools/call` is answered
 * with a `[session-ended]` tool error, any other request with a JSON-RPC error — and is recorded
 * as `denied`/`session-ended`; a new relay is refused; `close` leaves no socket behind.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { readCalls } from '../../../src/runtime/gateway/call-log.js';
import type { CallRecord } from '../../../src/runtime/gateway/call-record.js';
import { GatewayHub } from '../../../src/runtime/gateway/gateway-hub.js';
import type { Route } from '../../../src/runtime/gateway/relay-connection.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import type { ServerDefinition } from '../../../src/config/registry/types.js';
import { tmpDir } from '../../support/tmp.js';
import { CLI, ECHO_SERVER, requireBuild } from '../../support/world.js';

let root: string;
let hub: GatewayHub | undefined;

beforeAll(() => {
  requireBuild();
});

afterEach(async () => {
  await hub?.close();
});

function echoRoute(calls: string): Route {
  const definition: ServerDefinition = {
    id: 'notes',
    transport: 'stdio',
    command: process.execPath,
    args: [ECHO_SERVER, '--tools', 'echo', '--call-log', calls],
    enabled_tools: ['echo'],
    default_tools_approval_mode: 'approve',
  };
  return {
    process: 'root',
    role: 'lead',
    server: 'notes',
    definition,
    gate: { allowed: new Set(['echo']) },
    launch: {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root },
      home: root,
      cwd: root,
      credentials: credentialSourceFrom({}, {}, '/nonexistent/credentials.env', true),
    },
  };
}

/** An MCP client through a real relay process of the CLI. */
async function viaGateway(gateway: GatewayHub, token: string): Promise<Client> {
  const client = new Client({ name: 'codex-mcp-client', version: '1' }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'gateway', 'connect', '--socket', gateway.socketPath, '--process', 'root'].concat(
        ['--server', 'notes', '--token-env', 'GW_TOKEN'],
      ),
      env: { PATH: process.env.PATH ?? '', GW_TOKEN: token },
      stderr: 'pipe',
    }),
  );
  return client;
}

function text(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

describe('the gateway while the session is ending', () => {
  it('refuses and records every request that arrives after the stop began, and keeps no socket', async () => {
    root = await tmpDir('gw-stop-');
    const records: CallRecord[] = [];
    const started = await GatewayHub.start({
      socketPath: join(root, 'gateway.sock'),
      callsFile: join(root, 'calls.jsonl'),
      secrets: [],
      onRecord: (entry) => records.push(entry),
    });
    hub = started;
    const serverCalls = join(root, 'server-calls.jsonl');
    const route = echoRoute(serverCalls);
    const token = started.addRoute(route);
    const client = await viaGateway(started, token);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'before' } }))).toContain(
      'before',
    );

    started.beginStop();
    const late = await client.callTool({ name: 'echo', arguments: { text: 'after' } });
    expect(late.isError).toBe(true);
    expect(text(late)).toBe('codex-mmo refused this call [session-ended]: the session is ending');
    await expect(client.listTools()).rejects.toThrow(/\[session-ended\]/);
    // a relay that comes now is refused
    const second = started.addRoute({ ...route });
    await expect(viaGateway(started, second)).rejects.toThrow();
    await client.close();

    await started.close();
    hub = undefined;
    expect(existsSync(join(root, 'gateway.sock'))).toBe(false);
    // only the call before the stop reached the server
    const reached = (await readFile(serverCalls, 'utf8')).split('\n').filter((l) => l !== '');
    expect(reached).toHaveLength(1);
    expect(reached[0]).toContain('before');
    const { calls } = await readCalls(root);
    expect(calls.filter((c) => c.reason === 'session-ended')).toEqual([
      expect.objectContaining({
        method: 'tools/call',
        tool: 'echo',
        outcome: 'denied',
        role: 'lead',
      }),
      expect.objectContaining({ method: 'tools/list', outcome: 'denied' }),
    ]);
    expect(records.filter((c) => c.reason === 'session-ended')).toHaveLength(2);
  });
});
