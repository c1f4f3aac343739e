/**
 * `codex-mmo mesh serve` as a real process, driven by an MCP SDK stdio client the way Codex
 * drives it: it finds the session broker through session.json, introduces the caller, answers
 * with grant refusals as tool errors, still serves (with clear errors) when no session is
 * running, and exits when its input closes.
 */
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defaultCliLaunch } from '../../../src/runtime/mesh/mesh-command.js';
import { MESH_TOKEN_ENV } from '../../../src/runtime/mesh/mesh-credential.js';
import { NO_CREDENTIAL_MESSAGE, SessionBroker } from '../../../src/runtime/mesh/session-broker.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import { isAlive } from '../../../src/foundation/process/process-control.js';
import { processStart } from '../../../src/foundation/process/tcp-peer.js';
import { SESSION_FORMAT } from '../../../src/runtime/session/session-record.js';
import {
  createSessionDir,
  writeSessionRecord,
} from '../../../src/runtime/session/session-store.js';
import { tmpDir } from '../../support/tmp.js';
import { fixture } from '../../support/plan-fixture.js';
import { CLI, CODEX, requireBuild } from '../../support/world.js';

let root: string;
let sessionDir: string;
let broker: SessionBroker;

beforeAll(async () => {
  requireBuild();
  root = await tmpDir('codex-mmo-mesh-');
  sessionDir = join(root, 'sessions', 's1');
  await createSessionDir(sessionDir);
  const { stored, plan } = fixture();
  const socketPath = join(root, 'm.sock');
  broker = await SessionBroker.start({
    sessionId: 's1',
    sessionDir,
    socketPath,
    snapshot: stored.snapshot,
    plan,
    launchEnv: {},
    credentials: credentialSourceFrom({}, {}, 'credentials.env', false),
    home: root,
    baseCodexHome: root,
    codexBin: CODEX,
    cli: defaultCliLaunch(),
    defaultCwd: root,
  });
  await writeSessionRecord(sessionDir, {
    format: SESSION_FORMAT,
    id: 's1',
    profile: plan.profile,
    snapshot: stored.id,
    mode: 'exec',
    cwd: root,
    started: new Date().toISOString(),
    status: 'running',
    pid: process.pid,
    pid_start: processStart(process.pid) ?? '',
    mesh_socket: socketPath,
    processes: [],
  });
});

afterAll(async () => {
  await broker.close();
});

async function serve(
  args: string[],
  /** The credential in the server's environment; null for none. */
  token: string | null = broker.rootToken,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mesh', 'serve', ...args],
    env: {
      PATH: process.env.PATH ?? '',
      ...(token !== null ? { [MESH_TOKEN_ENV]: token } : {}),
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'codex', version: '0.149.1' });
  await client.connect(transport);
  return { client, transport };
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content.map((c) => c.text).join('');
}

describe('mesh serve', () => {
  it('serves the caller with its grants and refuses what they do not allow', async () => {
    const { client, transport } = await serve(['--session', sessionDir, '--process', 'lead']);
    const pid = transport.pid;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'list_participants',
      'send_message',
      'spawn_participant',
      'stop_participant',
      'wait_participant',
    ]);
    expect(client.getServerVersion()?.name).toBe('mmo_mesh');
    expect(tools.find((t) => t.name === 'spawn_participant')?.description).toContain(
      'Roles you may spawn: researcher.',
    );
    const refused = await client.callTool({
      name: 'spawn_participant',
      arguments: { role: 'reviewer', task: 'x' },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      "mmo_mesh refused: role 'lead' may not spawn role 'reviewer': its spawn grant allows researcher",
    );
    const missing = await client.callTool({
      name: 'wait_participant',
      arguments: { participant: 'researcher-7' },
    });
    expect(text(missing)).toContain("no participant 'researcher-7' in this session");
    const listed = await client.callTool({ name: 'list_participants', arguments: {} });
    expect(JSON.parse(text(listed))).toEqual({ participants: [] });
    await client.close();
    const deadline = Date.now() + 5000;
    while (pid !== null && isAlive(pid) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(pid !== null && isAlive(pid)).toBe(false);
  }, 30_000);

  it('still serves, with a clear error, when the session is not running or the caller is unknown', async () => {
    const { client } = await serve([
      '--session',
      join(root, 'sessions', 'gone'),
      '--process',
      'lead',
    ]);
    expect((await client.listTools()).tools).toHaveLength(5);
    const result = await client.callTool({ name: 'list_participants', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^mmo_mesh unavailable: no running codex-mmo session at .*gone/);
    await client.close();

    const impostor = await serve([
      '--session',
      sessionDir,
      '--process',
      'researcher',
      '--participant',
      'researcher-3',
    ]);
    const refused = await impostor.client.callTool({ name: 'list_participants', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(
      "'researcher-3' is not a participant of role 'researcher' in this session",
    );
    await impostor.client.close();
  }, 30_000);

  it('refuses a caller without the credential of a process of the session', async () => {
    for (const token of [null, 'not-the-credential']) {
      const { client } = await serve(['--session', sessionDir, '--process', 'lead'], token);
      for (const call of [
        { name: 'spawn_participant', arguments: { role: 'researcher', task: 'x' } },
        { name: 'list_participants', arguments: {} },
      ]) {
        const result = await client.callTool(call);
        expect(result.isError).toBe(true);
        expect(text(result)).toBe(`mmo_mesh refused: ${NO_CREDENTIAL_MESSAGE}`);
      }
      await client.close();
    }
    expect(NO_CREDENTIAL_MESSAGE).toMatch(
      /^this connection did not present the session's credential/,
    );
    expect(broker.list()).toEqual([]);
  }, 30_000);
});
