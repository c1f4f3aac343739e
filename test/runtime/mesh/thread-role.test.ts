/**
 * The session broker checks each mesh call against its calling thread's role, as the model wire
 * attributed it: a native role acts with its own spawn/control lists, and a call whose thread is
 * missing, unknown, of another Codex process or unattributed is refused. The refusals come
 * before anything starts, so no participant is launched here.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { compileProfile } from '../../../src/config/compile/compile-profile.js';
import type { ThreadAttribution } from '../../../src/runtime/gateway/relay-connection.js';
import { BrokerClient } from '../../../src/runtime/mesh/broker-client.js';
import { defaultCliLaunch } from '../../../src/runtime/mesh/mesh-command.js';
import { SessionBroker } from '../../../src/runtime/mesh/session-broker.js';
import { resolveDirectories } from '../../../src/foundation/paths/directories.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import { CODEX, makeWorld, profileToml, type World } from '../../support/world.js';

const PROFILE = profileToml('threads', 'lead', {
  lead: { natives: ['scout', 'planner'], spawn: ['helper'], control: ['helper'] },
  scout: {},
  planner: { spawn: ['worker'] },
  helper: {},
  worker: {},
});

const THREADS: Record<string, ThreadAttribution> = {
  'lead-thread': { process: 'root', role: 'lead' },
  'scout-thread': { process: 'root', role: 'scout' },
  'planner-thread': { process: 'root', role: 'planner' },
  'unattributed-thread': { process: 'root', role: null },
  'elsewhere-thread': { process: 'helper-1', role: 'helper' },
};

let world: World;
let broker: SessionBroker;
let client: BrokerClient;

beforeAll(async () => {
  world = await makeWorld({ registry: '', profile: PROFILE, modelUrl: 'http://127.0.0.1:9/v1' });
  const dirs = resolveDirectories(world.env, world.home, {
    configDir: world.configDir,
    dataDir: world.dataDir,
    stateDir: world.stateDir,
  });
  const compiled = await compileProfile({ nameOrPath: world.packDir, dirs, cwd: world.root });
  if (compiled.stored === undefined || compiled.plan === undefined) {
    throw new Error(JSON.stringify(compiled.diagnostics));
  }
  const sessionDir = join(world.stateDir, 'sessions', 's');
  await mkdir(join(sessionDir, 'logs'), { recursive: true });
  broker = await SessionBroker.start({
    sessionId: 's',
    sessionDir,
    socketPath: join(world.root, 'mesh.sock'),
    snapshot: compiled.stored.snapshot,
    plan: compiled.plan,
    launchEnv: world.env,
    credentials: credentialSourceFrom({}, world.env, join(world.configDir, 'c.env'), true),
    home: world.home,
    baseCodexHome: world.baseCodexHome,
    codexBin: CODEX,
    cli: defaultCliLaunch(),
    defaultCwd: world.workDir,
    roleOfThread: (thread) => THREADS[thread],
  });
  ({ client } = await BrokerClient.connect(
    broker.socketPath,
    { process: 'lead', participant: 'root' },
    broker.rootToken,
  ));
});

afterAll(async () => {
  client.close();
  await broker.close();
});

const refusal = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'not refused',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );

describe('mmo_mesh calls by calling thread', () => {
  it("acts with a native role's own lists, not its root's", async () => {
    expect(
      await refusal(client.spawn({ role: 'helper', task: 't' }, { thread: 'scout-thread' })),
    ).toBe("role 'scout' may not spawn role 'helper': its spawn grant allows none");
    expect(
      await refusal(client.spawn({ role: 'helper', task: 't' }, { thread: 'planner-thread' })),
    ).toBe("role 'planner' may not spawn role 'helper': its spawn grant allows worker");
    expect(await refusal(client.stop('helper-9', { thread: 'scout-thread' }))).toContain(
      "no participant 'helper-9'",
    );
    // the root's own thread lists with its own control grant
    expect(await client.list({ thread: 'lead-thread' })).toEqual({ participants: [] });
  });

  it('refuses a call whose thread is missing, unknown, elsewhere or unattributed', async () => {
    const lead = { role: 'helper', task: 't' };
    expect(await refusal(client.spawn(lead))).toContain('the call names no calling thread');
    expect(await refusal(client.list({ thread: 'nobody' }))).toContain(
      "its thread nobody is not known to the session's model wire",
    );
    expect(await refusal(client.spawn(lead, { thread: 'elsewhere-thread' }))).toContain(
      'belongs to another Codex process',
    );
    expect(await refusal(client.spawn(lead, { thread: 'unattributed-thread' }))).toContain(
      'could not be attributed to a role',
    );
    expect(broker.list()).toEqual([]);
  });
});
