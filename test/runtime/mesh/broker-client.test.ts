/**
 * The mesh credential goes only to the session's supervisor: the broker client connects to the
 * real broker and is accepted; a process of the same user that replaced the broker's socket, a
 * socket in a directory others may enter, and a session record without the supervisor's start
 * time are refused with `listener-not-verified` before `hello` — the listener receives not a
 * byte, let alone the token — and `mmo_mesh` answers every call with that refusal.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import { ListenerNotVerifiedError } from '../../../src/foundation/errors.js';
import { thisProcess } from '../../../src/foundation/process/socket-listener.js';
import { processStart } from '../../../src/foundation/process/tcp-peer.js';
import { BrokerClient } from '../../../src/runtime/mesh/broker-client.js';
import { defaultCliLaunch } from '../../../src/runtime/mesh/mesh-command.js';
import { serveMeshOn } from '../../../src/runtime/mesh/serve-mesh.js';
import { SessionBroker } from '../../../src/runtime/mesh/session-broker.js';
import { SESSION_FORMAT } from '../../../src/runtime/session/session-record.js';
import {
  createSessionDir,
  writeSessionRecord,
} from '../../../src/runtime/session/session-store.js';
import { startFakeListener, type FakeListener } from '../../support/fake-listener.js';
import { fixture } from '../../support/plan-fixture.js';
import { tmpDir } from '../../support/tmp.js';
import { CODEX } from '../../support/world.js';

const ROOT = { process: 'lead', participant: 'root' };

let root: string;
let sessionDir: string;
let broker: SessionBroker;
let fake: FakeListener | undefined;

beforeEach(async () => {
  root = await tmpDir('codex-mmo-broker-client-');
  sessionDir = join(root, 'sessions', 's1');
  await createSessionDir(sessionDir);
  const { stored, plan } = fixture();
  const socketPath = join(sessionDir, 'mesh.sock');
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

afterEach(async () => {
  await fake?.stop();
  fake = undefined;
  await broker.close();
});

async function refusal(promise: Promise<unknown>): Promise<ListenerNotVerifiedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ListenerNotVerifiedError);
  expect((error as ListenerNotVerifiedError).code).toBe('listener-not-verified');
  return error as ListenerNotVerifiedError;
}

/** What `mmo_mesh`, served for the root through the session record, answers to a call. */
async function meshAnswer(): Promise<string> {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  await serveMeshOn({ sessionDir, caller: ROOT, token: broker.rootToken }, theirs);
  const client = new Client({ name: 'codex', version: '0.171.0' });
  await client.connect(ours);
  const result = (await client.callTool({ name: 'list_participants', arguments: {} })) as {
    content: { text: string }[];
  };
  await client.close();
  return result.content.map((c) => c.text).join('');
}

describe('the broker client', () => {
  it("is accepted by the session's own broker, found directly or through the session record", async () => {
    const { client, hello } = await BrokerClient.connect(
      broker.socketPath,
      ROOT,
      broker.rootToken,
      thisProcess(),
    );
    expect(hello.role).toBe('lead');
    client.close();
    expect(JSON.parse(await meshAnswer())).toEqual({ participants: [] });
  });

  it('sends nothing to another process of the user that replaced the socket', async () => {
    fake = await startFakeListener(broker.socketPath);
    const refused = await refusal(BrokerClient.connect(broker.socketPath, ROOT, broker.rootToken));
    expect(refused.message).toContain(`held by process ${String(fake.pid)}`);
    expect(refused.message).not.toContain(broker.rootToken);
    const answer = await meshAnswer();
    expect(answer).toContain('is not verified');
    expect(answer).not.toContain(broker.rootToken);
    // both attempts reached the fake, which received not a byte: no hello, no token
    expect(fake.accepted()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.received()).toBe('');
  });

  it('refuses a broker socket in a directory others may enter', async () => {
    await chmod(sessionDir, 0o755);
    try {
      const refused = await refusal(
        BrokerClient.connect(broker.socketPath, ROOT, broker.rootToken),
      );
      expect(refused.message).toContain('has mode 0755, not 0700');
    } finally {
      await chmod(sessionDir, 0o700);
    }
  });

  it('refuses a session record whose supervisor is not the listener or has no start time', async () => {
    const file = join(sessionDir, 'session.json');
    const record = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...record, pid_start: undefined }));
    expect(await meshAnswer()).toContain('start time of the expected process');
    await writeFile(file, JSON.stringify({ ...record, pid: process.ppid }));
    expect(await meshAnswer()).toContain('is not verified');
  });
});
