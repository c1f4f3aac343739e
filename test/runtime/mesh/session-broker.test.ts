/**
 * The session broker with real participants (`codex app-server` against a scripted model):
 * grant checks before anything starts, the send/wait cycle with queued messages, control reaching
 * participants another process started, a crashed participant reported as failed, a failing
 * required server and a lifecycle wait that runs out, and cleanup when a caller's mesh connection
 * (over the socket, or in-process) closes or the session ends.
 */
import { mkdir } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { compileProfile } from '../../../src/config/compile/compile-profile.js';
import { renderProcess } from '../../../src/config/compile/render-process.js';
import { BrokerClient } from '../../../src/runtime/mesh/broker-client.js';
import { defaultCliLaunch } from '../../../src/runtime/mesh/mesh-command.js';
import {
  LineDecoder,
  MeshError,
  encodeLine,
  type MeshBackend,
} from '../../../src/runtime/protocol/mesh-protocol.js';
import { Participant } from '../../../src/runtime/mesh/participant.js';
import { NO_CREDENTIAL_MESSAGE, SessionBroker } from '../../../src/runtime/mesh/session-broker.js';
import { resolveDirectories } from '../../../src/foundation/paths/directories.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import { writeProcessHome } from '../../../src/runtime/session/codex-home.js';
import { isAlive } from '../../../src/foundation/process/process-control.js';
import { processEnvironment } from '../../../src/runtime/session/process-env.js';
import type { ResolvedPlan } from '../../../src/config/profile/types.js';
import type { StoredSnapshot } from '../../../src/config/snapshot/types.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { CODEX, echoServer, profileToml, waitFor } from '../../support/world.js';

const SLOW_CANARY = 'slow-canary-6f6f6f';

const PROFILE = profileToml('brokertest', 'lead', {
  lead: {
    spawn: ['worker', 'sleeper', 'helper', 'fragile', 'patient', 'lazy'],
    control: ['worker', 'sleeper', 'helper'],
  },
  worker: { control: ['helper'] },
  sleeper: { spawn: ['slow'] },
  helper: {},
  fragile: { grants: { broken: {} } },
  slow: { grants: { slow: {} } },
  patient: { grants: { late: { required: false }, broken: { required: false } } },
  lazy: { grants: { slow: { required: false } } },
});

const REGISTRY =
  echoServer('broken', { args: ['--fail'] }) +
  echoServer('slow', { args: ['--delay-ms', '20000'], envVars: ['SLOW_CRED'] }) +
  echoServer('late', { args: ['--delay-ms', '2500'] });

let stored: StoredSnapshot;
let plan: ResolvedPlan;
let broker: SessionBroker;
let lead: MeshBackend;
let sessionDir: string;
const releases: (() => void)[] = [];

function role(request: { developerTexts: string[] }, name: string): boolean {
  return request.developerTexts.some((t) => t.includes(`ROLE-${name}`));
}

const scripted = useScriptedSession({ registry: REGISTRY, profile: PROFILE }, (request) => {
  if (role(request, 'SLEEPER')) {
    return new Promise((resolve) =>
      releases.push(() => {
        resolve([{ type: 'message', text: 'late' }]);
      }),
    );
  }
  const said = request.userTexts.at(-1) ?? '';
  return [
    { type: 'message', text: `${role(request, 'HELPER') ? 'HELPER' : 'WORKER'} SAYS ${said}` },
  ];
});

beforeAll(async () => {
  const dirs = resolveDirectories(scripted.world.env, scripted.world.home, {
    configDir: scripted.world.configDir,
    dataDir: scripted.world.dataDir,
    stateDir: scripted.world.stateDir,
  });
  const compiled = await compileProfile({
    nameOrPath: scripted.world.packDir,
    dirs,
    cwd: scripted.world.root,
  });
  if (compiled.stored === undefined || compiled.plan === undefined) {
    throw new Error(JSON.stringify(compiled.diagnostics));
  }
  stored = compiled.stored;
  plan = compiled.plan;
  sessionDir = join(scripted.world.stateDir, 'sessions', 's');
  await mkdir(join(sessionDir, 'logs'), { recursive: true });
  broker = await SessionBroker.start({
    sessionId: 's',
    sessionDir,
    socketPath: join(scripted.world.root, 'mesh.sock'),
    snapshot: stored.snapshot,
    plan,
    launchEnv: scripted.world.env,
    credentials: credentialSourceFrom(
      { SLOW_CRED: SLOW_CANARY },
      scripted.world.env,
      join(scripted.world.configDir, 'credentials.env'),
      true,
    ),
    home: scripted.world.home,
    baseCodexHome: scripted.world.baseCodexHome,
    codexBin: CODEX,
    cli: defaultCliLaunch(),
    defaultCwd: scripted.world.workDir,
  });
  lead = broker.backendFor({ process: 'lead', participant: 'root' });
});

/** Sends request lines over a fresh socket and collects one reply per request. */
async function rawSession(requests: readonly object[]): Promise<unknown[]> {
  const replies: unknown[] = [];
  const socket = createConnection(broker.socketPath);
  const decoder = new LineDecoder((value) => replies.push(value));
  socket.on('data', (chunk: Buffer) => {
    decoder.push(chunk);
  });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  for (const request of requests) {
    socket.write(encodeLine(request));
    // one at a time, so the replies come in request order
    const want = replies.length + 1;
    await waitFor(() => replies.length >= want, 5000);
  }
  socket.destroy();
  return replies;
}

afterAll(async () => {
  for (const release of releases) release();
  await broker.close();
});

/** An in-process connection to the broker (there is one while it runs). */
function local(): Duplex {
  const stream = broker.connectLocal();
  if (stream === undefined) throw new Error('the broker is closing');
  return stream;
}

async function refusal(call: Promise<unknown>): Promise<MeshError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MeshError);
  return error as MeshError;
}

describe('session broker', () => {
  it('cuts off an unauthenticated client that streams a 50 MB line before hello', async () => {
    const socket = createConnection(broker.socketPath);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        resolve();
      }),
    );
    socket.on('error', () => undefined);
    const chunk = 'x'.repeat(1024 * 1024);
    const started = performance.now();
    const memoryBefore = process.memoryUsage().rss;
    let sent = 0;
    while (sent < 50 && !socket.destroyed) {
      socket.write(chunk);
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await closed;
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(process.memoryUsage().rss - memoryBefore).toBeLessThan(200 * 1024 * 1024);
    // the broker still serves everyone else
    const replies = await rawSession([{ id: 1, method: 'list_participants', params: {} }]);
    expect(replies).toEqual([{ id: 1, error: { code: 'invalid', message: 'send hello first' } }]);
  }, 30_000);

  it('refuses ungranted and unknown roles before starting anything', async () => {
    const a = await refusal(lead.spawn({ role: 'slow', task: 't' }));
    expect(a.code).toBe('refused');
    expect(a.message).toBe(
      "role 'lead' may not spawn role 'slow': its spawn grant allows worker, sleeper, helper, fragile, patient, lazy",
    );
    const b = await refusal(lead.spawn({ role: 'ghost', task: 't' }));
    expect(b.message).toContain("unknown role 'ghost'");
    const c = await refusal(lead.spawn({ role: 'worker', task: 't', cwd: 'relative/dir' }));
    expect(c.code).toBe('invalid');
    expect(broker.list()).toEqual([]);
    expect(() => broker.backendFor({ process: 'worker', participant: 'root' })).toThrow(
      /runs role 'lead'/,
    );
  });

  it('refuses a socket connection without the credential of a process of the session', async () => {
    // a program that found the socket: each hello is refused and nothing can be spawned after it
    const attempts: { name: string; hello: Record<string, unknown>; message: string }[] = [
      {
        name: 'no credential',
        hello: { process: 'lead', participant: 'root' },
        message: NO_CREDENTIAL_MESSAGE,
      },
      {
        name: 'a wrong credential',
        hello: { process: 'lead', participant: 'root', token: 'A'.repeat(43) },
        message: NO_CREDENTIAL_MESSAGE,
      },
      {
        name: 'a credential of the right length but one character off',
        hello: {
          process: 'lead',
          participant: 'root',
          token: `${broker.rootToken.slice(0, -1)}${broker.rootToken.endsWith('A') ? 'B' : 'A'}`,
        },
        message: NO_CREDENTIAL_MESSAGE,
      },
      {
        name: 'a valid credential with a false role claim',
        hello: { process: 'worker', participant: 'root', token: broker.rootToken },
        message: "the session root process runs role 'lead', not 'worker'",
      },
    ];
    for (const attempt of attempts) {
      const replies = await rawSession([
        { id: 1, method: 'hello', params: attempt.hello },
        { id: 2, method: 'spawn', params: { role: 'worker', task: 'intruder' } },
      ]);
      expect(replies, attempt.name).toEqual([
        { id: 1, error: { code: 'refused', message: attempt.message } },
        { id: 2, error: { code: 'invalid', message: 'send hello first' } },
      ]);
    }
    expect(NO_CREDENTIAL_MESSAGE).toContain("did not present the session's credential");
    // the client as mesh serve uses it: refused with a clear error
    const refused = await BrokerClient.connect(
      broker.socketPath,
      { process: 'lead', participant: 'root' },
      undefined,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(MeshError);
    expect((refused as MeshError).code).toBe('refused');
    expect(broker.list()).toEqual([]);
  });

  it('runs the send and wait cycle, queueing a message sent mid-turn', async () => {
    const spawned = await lead.spawn({ role: 'worker', task: 'first task' });
    expect(spawned).toMatchObject({ participant: 'worker-1', role: 'worker', owner: 'root' });
    expect(spawned.pid).toBeGreaterThan(0);
    const first = await lead.wait('worker-1', 60);
    expect(first).toMatchObject({
      status: 'idle',
      timed_out: false,
      final_message: 'WORKER SAYS first task',
    });

    expect((await lead.send('worker-1', 'second')).delivered).toBe('turn');
    expect((await lead.send('worker-1', 'third')).delivered).toBe('queued');
    const second = await lead.wait('worker-1', 60);
    // the queued message ran as its own turn once the current one finished; wait covered both
    expect(second.final_message).toBe('WORKER SAYS third');
    expect(scripted.model.requests.filter((r) => r.userTexts.at(-1) === 'second')).toHaveLength(1);
  }, 60_000);

  it('lets control reach participants started by another process of the session', async () => {
    await lead.spawn({ role: 'helper', task: 'help' });
    const worker = broker.backendFor({ process: 'worker', participant: 'worker-1' });
    // the root's credential does not make its holder worker-1, which exists now
    expect(
      await rawSession([
        {
          id: 1,
          method: 'hello',
          params: { process: 'worker', participant: 'worker-1', token: broker.rootToken },
        },
      ]),
    ).toEqual([
      {
        id: 1,
        error: {
          code: 'refused',
          message:
            "this connection's credential belongs to the session root process (role 'lead'), not to participant 'worker-1' (role 'worker')",
        },
      },
    ]);
    expect((await worker.wait('helper-2', 60)).final_message).toBe('HELPER SAYS help');
    expect((await worker.list()).participants.map((p) => p.participant)).toEqual(['helper-2']);
    const refused = await refusal(worker.stop('worker-1'));
    expect(refused.message).toBe(
      "role 'worker' may not stop role 'worker': its control grant allows helper",
    );
    const missing = await refusal(worker.wait('nobody-9'));
    expect(missing.code).toBe('not-found');
    const stopped = await worker.stop('helper-2');
    expect(stopped.status).toBe('stopped');
    expect(isAlive(stopped.pid ?? 0)).toBe(false);
  }, 60_000);

  it('reports a crashed participant as failed', async () => {
    const sleeper = await lead.spawn({ role: 'sleeper', task: 'sleep' });
    const timedOut = await lead.wait(sleeper.participant, 0.3);
    expect(timedOut).toMatchObject({ status: 'running', timed_out: true });
    process.kill(-(sleeper.pid ?? 0), 'SIGKILL');
    const crashed = await lead.wait(sleeper.participant, 30);
    expect(crashed.status).toBe('failed');
    expect(crashed.error).toMatch(/exited unexpectedly \(SIGKILL\)/);
    await refusal(lead.send(sleeper.participant, 'are you there'));
  }, 60_000);

  it('fails a spawn whose required server cannot start, naming the server', async () => {
    const error = await refusal(lead.spawn({ role: 'fragile', task: 't' }));
    expect(error.code).toBe('failed');
    expect(error.message).toMatch(/required MCP servers failed to initialize: broken/);
    const fragile = broker.list().find((p) => p.role === 'fragile');
    expect(fragile?.status).toBe('failed');
    expect(isAlive(fragile?.pid ?? 0)).toBe(false);
  }, 60_000);

  it('waits for servers that are not required before the first turn, and reports their failures', async () => {
    const patient = await lead.spawn({ role: 'patient', task: 'be patient' });
    expect(patient.failed_servers).toEqual([
      { server: 'broken', error: expect.any(String) as unknown },
    ]);
    await waitFor(() => scripted.model.requests.some((r) => role(r, 'PATIENT')), 30_000);
    const first = scripted.model.requests.find((r) => role(r, 'PATIENT'));
    // the slow server's tools were there from the first request on
    expect(first?.offeredTools.mcp.late).toEqual(['echo']);
    expect(first?.offeredTools.mcp.broken).toBeUndefined();
    await lead.stop(patient.participant).catch(() => undefined);
  }, 60_000);

  it('abandons a participant whose MCP startup outlasts its lifecycle wait', async () => {
    /** A participant of `role` started directly, with a short lifecycle wait (default 2 s). */
    const launch = async (
      role: string,
      servers?: string[],
      lifecycleWaitSec = 2,
    ): Promise<ReturnType<typeof Participant.launch>> => {
      const process = plan.processes.find((p) => p.root === role);
      if (process === undefined) throw new Error(`no ${role} process`);
      const id = `${role}-x`;
      const home = join(sessionDir, 'homes', id);
      await writeProcessHome(
        renderProcess(stored.snapshot, plan, role, { home: scripted.world.home }),
        home,
        scripted.world.baseCodexHome,
      );
      const credentials = credentialSourceFrom(
        { SLOW_CRED: SLOW_CANARY },
        {},
        'credentials.env',
        true,
      );
      return Participant.launch({
        id,
        role,
        owner: 'root',
        task: 't',
        cwd: scripted.world.workDir,
        home,
        env: processEnvironment(
          plan,
          process,
          stored.snapshot.base,
          scripted.world.env,
          credentials,
          home,
        ).env,
        codexBin: CODEX,
        lifecycleWaitSec,
        secrets: [SLOW_CANARY],
        ...(servers !== undefined ? { servers } : {}),
      });
    };
    const { participant, ready } = await launch('slow');
    await expect(ready).rejects.toThrow(
      'MCP startup of participant slow-x (role slow) was not ready within its lifecycle wait of 2 s; the participant was abandoned',
    );
    expect(participant.status).toBe('failed');
    expect(participant.error).not.toContain(SLOW_CANARY);
    expect(isAlive(participant.pid ?? 0)).toBe(false);

    // a server that is not required counts towards the lifecycle wait as well (long enough for
    // thread/start on a loaded machine, far shorter than the server's 20 s start)
    const lazy = await launch('lazy', ['slow'], 8);
    await expect(lazy.ready).rejects.toThrow(
      'MCP startup of participant lazy-x (role lazy) was not ready within its lifecycle wait of 8 s (still starting: slow); the participant was abandoned',
    );
    expect(isAlive(lazy.participant.pid ?? 0)).toBe(false);
  }, 60_000);

  it("stops a caller's participants when its last mesh connection closes", async () => {
    const { client } = await BrokerClient.connect(
      broker.socketPath,
      { process: 'lead', participant: 'root' },
      broker.rootToken,
    );
    // a second connection of the same caller keeps its participants alive while it lasts: here
    // the in-process one the supervisor's own mmo_mesh uses, with the same protocol and checks
    const { client: other } = await BrokerClient.open(
      local(),
      { process: 'lead', participant: 'root' },
      broker.rootToken,
    );
    const forged = await refusal(
      BrokerClient.open(
        local(),
        { process: 'lead', participant: 'root' },
        'not-the-root-credential',
      ),
    );
    expect(forged.code).toBe('refused');
    const spawned = await client.spawn({ role: 'helper', task: 'over the socket' });
    expect((await client.wait(spawned.participant, 60)).final_message).toBe(
      'HELPER SAYS over the socket',
    );
    const workerPid = broker.list().find((p) => p.participant === 'worker-1')?.pid ?? 0;
    client.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(isAlive(spawned.pid ?? 0)).toBe(true);
    other.close();
    // a process can be reaped a moment before its participant records the stop, so both are
    // awaited together
    const statusesNow = () => new Map(broker.list().map((p) => [p.participant, p.status]));
    const settled = (): boolean =>
      !isAlive(spawned.pid ?? 0) &&
      !isAlive(workerPid) &&
      [spawned.participant, 'worker-1'].every((id) => statusesNow().get(id) === 'stopped');
    const deadline = Date.now() + 10_000;
    while (!settled() && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    // everything the root process owned goes: the helper and the earlier worker
    expect(isAlive(spawned.pid ?? 0)).toBe(false);
    expect(isAlive(workerPid)).toBe(false);
    const statuses = statusesNow();
    expect(statuses.get(spawned.participant)).toBe('stopped');
    expect(statuses.get('worker-1')).toBe('stopped');
  }, 60_000);

  it('stops every participant when the session ends', async () => {
    const second = await SessionBroker.start({
      sessionId: 's2',
      sessionDir,
      socketPath: join(scripted.world.root, 'mesh2.sock'),
      snapshot: stored.snapshot,
      plan,
      launchEnv: scripted.world.env,
      credentials: credentialSourceFrom({}, {}, 'credentials.env', false),
      home: scripted.world.home,
      baseCodexHome: scripted.world.baseCodexHome,
      codexBin: CODEX,
      cli: defaultCliLaunch(),
      defaultCwd: scripted.world.workDir,
    });
    const backend = second.backendFor({ process: 'lead', participant: 'root' });
    const spawned = await backend.spawn({ role: 'sleeper', task: 'sleep' });
    expect(isAlive(spawned.pid ?? 0)).toBe(true);
    await second.close();
    expect(isAlive(spawned.pid ?? 0)).toBe(false);
    expect(second.list().map((p) => p.status)).toEqual(['stopped']);
    const late = await refusal(backend.spawn({ role: 'worker', task: 'too late' }));
    expect(late.code).toBe('unavailable');
    // nor is an in-process connection handed out any more
    expect(second.connectLocal()).toBeUndefined();
  }, 60_000);
});
