/**
 * The session broker's socket under a flood of idle connections that never send `hello`, as a
 * hostile shell opens them: at most the cap stay open, each is closed when its time runs out,
 * the flood is reported once, and a `mesh serve` presenting the session's credential is accepted
 * during the flood and kept past that time.
 */
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ProfileData, ResolvedPlan } from '../../../src/config/profile/types.js';
import type { Snapshot } from '../../../src/config/snapshot/types.js';
import type { ListenerFlood } from '../../../src/foundation/process/connection-limits.js';
import type { BrokerOptions } from '../../../src/runtime/mesh/broker-options.js';
import { SessionBroker } from '../../../src/runtime/mesh/session-broker.js';
import { flood, lineClient, sleep, type LineClient } from '../../support/flood.js';
import { tmpDir } from '../../support/tmp.js';
import { waitFor } from '../../support/world.js';

const CAP = 16;
const PROFILE = {
  schema_version: 8,
  name: 'flood',
  root: 'lead',
  agents: { lead: { name: 'lead', instructions: 'ROLE-LEAD', spawn: [], control: [] } },
} as unknown as ProfileData;
const PLAN = {
  profile: 'flood',
  root: 'lead',
  roles: { lead: { name: 'lead', grants: {} } },
  processes: [{ root: 'lead', roles: ['lead'], servers: [], mesh: true }],
  servers: {},
} as unknown as ResolvedPlan;

/** A `mesh serve` of the session root: its `hello` with the root's credential, answered. */
async function hello(broker: SessionBroker): Promise<{ client: LineClient; answer: unknown }> {
  const client = await lineClient(broker.socketPath);
  client.send({ id: 1, method: 'hello', params: { token: broker.rootToken } });
  return { client, answer: await client.next() };
}

async function list(client: LineClient): Promise<unknown> {
  client.send({ id: 2, method: 'list', params: {} });
  return client.next();
}

async function brokerWith(authTimeoutMs: number, floods: ListenerFlood[]): Promise<SessionBroker> {
  const dir = await tmpDir('codex-mmo-broker-flood-');
  // only what accepting a connection reads: the session, its plan and its profile
  const options = {
    sessionId: 's1',
    sessionDir: dir,
    socketPath: join(dir, 'mesh.sock'),
    snapshot: { profile: PROFILE } as unknown as Snapshot,
    plan: PLAN,
    limits: { maxPending: CAP, authTimeoutMs, onFlood: (f: ListenerFlood) => floods.push(f) },
  } as unknown as BrokerOptions;
  return SessionBroker.start(options);
}

describe('the session broker under a flood of idle connections', () => {
  it('keeps at most the cap open and accepts the session root during the flood', async () => {
    const floods: ListenerFlood[] = [];
    const broker = await brokerWith(60_000, floods);
    const idle = flood(broker.socketPath);
    await idle.more(300);
    await waitFor(() => idle.closed() >= 300 - CAP, 5_000);
    expect(idle.open()).toBe(CAP);
    expect(floods.map((f) => [f.listener, f.limit])).toEqual([['mesh-broker', CAP]]);
    const keepFlooding = setInterval(() => {
      void idle.more(20);
    }, 10);
    try {
      const { client, answer } = await hello(broker);
      expect(answer).toMatchObject({ id: 1, result: { session: 's1', role: 'lead' } });
      expect(await list(client)).toEqual({ id: 2, result: { participants: [] } });
      client.close();
    } finally {
      clearInterval(keepFlooding);
    }
    await sleep(100);
    expect(idle.open()).toBeLessThanOrEqual(CAP);
    expect(floods).toHaveLength(1);
    idle.end();
    await broker.close();
  });

  it('closes a connection without hello in time, and keeps one whose hello was accepted', async () => {
    const floods: ListenerFlood[] = [];
    const broker = await brokerWith(200, floods);
    const { client, answer } = await hello(broker);
    expect(answer).toMatchObject({ id: 1, result: { role: 'lead' } });
    const idle = flood(broker.socketPath);
    await idle.more(10);
    await waitFor(() => idle.closed() === 10, 2_000);
    expect(idle.open()).toBe(0);
    await sleep(400);
    expect(await list(client)).toEqual({ id: 2, result: { participants: [] } });
    expect(floods).toEqual([]);
    client.close();
    await broker.close();
  });
});
