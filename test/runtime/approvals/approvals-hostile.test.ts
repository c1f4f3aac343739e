/**
 * The session's control channels against the model's own shell, with real `codex exec` and a
 * scripted model: the root role works with `workspace-write` and `network_access = true`. While a
 * participant's tool call waits for a person, the root's shell tries to read the approval key, to
 * reach the approval socket and the mmo_mesh broker (the host view lets it connect to no Unix
 * socket), to present tokens to the gateway's loopback endpoint and the model wire, and to take
 * the approval socket's place. Every attempt fails, the call never reaches the server while it
 * waits, and the person's `session approve` from outside still answers it, recorded as that OS
 * user. A same-user process outside the session that takes the socket's place is refused by the
 * CLI, which first checks that the socket's listener is the session's supervisor.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { basename, join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import {
  REPO,
  echoServer,
  makeWorld,
  onlySession,
  profileToml,
  runInWorld,
  startInWorld,
  waitFor,
  type World,
} from '../../support/world.js';

const HOSTILE = join(REPO, 'test/fixtures/hostile/control-channels.mjs');
const FAKE = join(REPO, 'test/fixtures/hostile/fake-approvals.mjs');

/**
 * A copy of a fixture script in the world's working directory, where the model's shell can run
 * it: the host view shows the shell a private `/tmp`, so a clone of this repository under `/tmp`
 * is out of its sight.
 */
async function inWorkDir(w: World, script: string): Promise<string> {
  const copy = join(w.workDir, basename(script));
  await copyFile(script, copy);
  return copy;
}

interface Exchange {
  connected: boolean;
  replies: string[];
  error?: string;
}

interface ChannelsResult {
  key: string;
  unlinkKey: string;
  overwriteKey: string;
  listing: string;
  bareList: Exchange;
  bareAnswer: Exchange;
  guessedKey: Exchange;
  mesh: Exchange;
  gateway: { status: number; body: string }[];
  wire?: { status: number; body: string }[];
  wireByReadPath?: { status: number; body: string }[];
}

const PROFILE = profileToml('hostile-approvals', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'] },
  worker: { grants: { guarded: {} } },
}).replace(
  '[agents.lead]\n',
  '[agents.lead]\npermissions = "workspace-write"\nnetwork_access = true\n',
);

function isRole(request: ModelRequest, marker: string): boolean {
  return request.developerTexts.some((t) => t.includes(marker));
}

let world: World;
/** Resolves with the shell command once the test has seen the participant's request pending. */
let attack: Promise<string> = Promise.resolve('');
let startAttack: (command: string) => void = () => undefined;
let attacked: Promise<string> = Promise.resolve('');
let attackOutput: (output: string) => void = () => undefined;
/** How long the attack's shell call waits before returning (a background attack returns soon). */
let attackYieldMs = 60_000;

function newAttack(yieldMs: number): void {
  attackYieldMs = yieldMs;
  attack = new Promise((resolve) => {
    startAttack = resolve;
  });
  attacked = new Promise((resolve) => {
    attackOutput = resolve;
  });
}

function script(request: ModelRequest): ScriptedItem[] | Promise<ScriptedItem[]> {
  const step = request.toolOutputs.length;
  if (request.userTexts.some((t) => t.includes('PLAIN'))) {
    return [{ type: 'message', text: 'PLAIN-DONE' }];
  }
  if (isRole(request, 'ROLE-WORKER')) {
    return step === 0
      ? [
          {
            type: 'function_call',
            namespace: 'mcp__guarded',
            name: 'write',
            arguments: { text: 'worker-call' },
          },
        ]
      : [{ type: 'message', text: 'WORKER-DONE' }];
  }
  switch (step) {
    case 0:
      return [
        {
          type: 'function_call',
          namespace: 'mcp__mmo_mesh',
          name: 'spawn_participant',
          arguments: { role: 'worker', task: 'write' },
        },
      ];
    case 1:
      return attack.then((cmd) => [
        {
          type: 'function_call',
          name: 'exec_command',
          arguments: { cmd, login: false, yield_time_ms: attackYieldMs },
        },
      ]);
    case 2:
      attackOutput(request.toolOutputs.at(-1)?.output ?? '');
      return [
        {
          type: 'function_call',
          namespace: 'mcp__mmo_mesh',
          name: 'wait_participant',
          arguments: { participant: 'worker-1' },
        },
      ];
    default:
      return [{ type: 'message', text: 'LEAD-DONE' }];
  }
}

const fixture = useScriptedModel(script);

beforeAll(async () => {
  world = await guardedWorld();
});

/**
 * `w` with a state dir so deep that the session's sockets fall back to the temporary directory, a
 * writable root the shell reaches: the state dir itself it can neither list nor enter, so there
 * the approval key is what refuses it.
 */
function withSocketsOutside(w: World): World {
  const stateDir = join(w.root, `state-${'s'.repeat(90)}`);
  return { ...w, stateDir, dirArgs: w.dirArgs.map((a) => (a === w.stateDir ? stateDir : a)) };
}

/** A world whose `guarded.write` asks a person and logs every call that reaches it. */
async function guardedWorld(): Promise<World> {
  return withSocketsOutside(
    await makeWorld({
      registry: (root) =>
        echoServer('guarded', {
          tools: 'write!',
          approval: 'prompt',
          args: ['--call-log', join(root, 'guarded-calls.jsonl')],
        }),
      profile: PROFILE,
      modelUrl: fixture.model.baseUrl,
    }),
  );
}

/** The id of the world's session once its participant's request waits in the queue. */
async function pendingSession(w: World): Promise<string> {
  let id = '';
  await waitFor(async () => {
    const listed = await runInWorld(w, ['session', 'list', '--json']);
    id = (JSON.parse(listed.stdout) as { sessions: { id: string }[] }).sessions[0]?.id ?? '';
    if (id === '') return false;
    const out = await runInWorld(w, ['session', 'approvals', id, '--json']);
    return (JSON.parse(out.stdout) as { approvals: unknown[] }).approvals.length > 0;
  }, 90_000);
  return id;
}

describe('a hostile shell with network access against the control channels', () => {
  it('is refused everywhere; the request waits for the person outside, who answers it', async () => {
    newAttack(60_000);
    const exec = startInWorld(world, ['exec', world.packDir, 'SPAWN', '--approval-timeout', '120']);
    let pending: { id: string; process: string }[] = [];
    let id = '';
    await waitFor(async () => {
      const listed = await runInWorld(world, ['session', 'list', '--json']);
      id = (JSON.parse(listed.stdout) as { sessions: { id: string }[] }).sessions[0]?.id ?? '';
      if (id === '') return false;
      const out = await runInWorld(world, ['session', 'approvals', id, '--json']);
      pending = (JSON.parse(out.stdout) as { approvals: { id: string; process: string }[] })
        .approvals;
      return pending.length > 0;
    }, 90_000);
    expect(pending).toMatchObject([{ id: 'a1', process: 'worker-1' }]);

    const { dir, record } = await onlySession(world);
    const mesh = String(record.mesh_socket);
    expect(mesh.startsWith(world.stateDir)).toBe(false);
    const approvals = String(record.approvals_socket);
    // the model wire's port (its per-process path is in the home's config.toml)
    const config = await readFile(join(dir, 'homes', 'lead', 'config.toml'), 'utf8');
    const wirePort = /http:\/\/127\.0\.0\.1:(\d+)\/p\/[0-9a-f]{32}/.exec(config)?.[1];
    expect(wirePort, config).toBeDefined();
    // the gateway's port can be found from /proc/net/tcp; its tokens are in Codex's environment
    const gateway = /^url = "(http:\/\/127\.0\.0\.1:\d+\/mcp)"$/m.exec(config)?.[1] ?? '';
    expect(gateway, config).not.toBe('');
    startAttack(
      [
        process.execPath,
        await inWorkDir(world, HOSTILE),
        dir,
        approvals,
        mesh,
        gateway,
        wirePort ?? '',
      ]
        .map((a) => `'${a}'`)
        .join(' '),
    );
    const output = await attacked;
    const line = output.split('\n').find((l) => l.startsWith('CHANNELS-RESULT '));
    expect(line, output).toBeDefined();
    const result = JSON.parse(line?.slice('CHANNELS-RESULT '.length) ?? '{}') as ChannelsResult;

    // the shell cannot list the session's directory (behind masks it shows only the way to the
    // process's own home) nor read the key
    expect(result.listing).toMatch(/^(E[A-Z]+|homes)$/);
    expect(result.key).toMatch(/^E[A-Z]+$/);
    // nor remove or overwrite it
    expect(result.unlinkKey).toMatch(/^E[A-Z]+$/);
    expect(result.overwriteKey).toMatch(/^E[A-Z]+$/);
    // the host view lets it connect to no Unix socket of the host: not the approvals, not mmo_mesh
    for (const attempt of [result.bareList, result.bareAnswer, result.guessedKey, result.mesh]) {
      expect(attempt.connected, JSON.stringify(attempt)).toBe(false);
      expect(attempt.replies).toEqual([]);
    }
    expect(result.gateway.map((g) => g.status)).toEqual([401, 401, 401]);
    for (const g of result.gateway) expect(g.body).toContain('[no-token]');

    // the model wire answers only under a process's own path, and only with its token: a path
    // read out of the process's own config.toml (readable behind masks) reaches nothing either
    expect(result.wire?.map((w) => w.status)).toEqual([404, 404]);
    const byReadPath = result.wireByReadPath ?? [];
    if (result.listing === 'homes') expect(byReadPath.length).toBeGreaterThan(0);
    for (const w of [...(result.wire ?? []), ...byReadPath]) {
      expect(w.status).toBe(404);
      expect(w.body).toContain('unknown process');
    }

    // the participant's call still waits, and never reached the server
    const still = await runInWorld(world, ['session', 'approvals', id, '--json']);
    expect((JSON.parse(still.stdout) as { approvals: { id: string }[] }).approvals).toMatchObject([
      { id: 'a1' },
    ]);
    const callLog = join(world.root, 'guarded-calls.jsonl');
    expect(existsSync(callLog)).toBe(false);

    // the person in another terminal answers it
    const approved = await runInWorld(world, ['session', 'approve', id, 'a1']);
    expect(approved.code, approved.stderr).toBe(0);
    const done = await exec.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('LEAD-DONE');
    const reached = (await readFile(callLog, 'utf8')).split('\n').filter((l) => l !== '');
    expect(reached).toHaveLength(1);

    const records = (await readFile(join(dir, 'approvals.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const answered = records.filter((r) => r.type === 'answered');
    expect(answered).toEqual([
      expect.objectContaining({
        id: 'a1',
        decision: 'approve',
        by: userInfo().username,
        how: 'cli',
      }),
    ]);
    // nothing of the shell's reached the approval socket, so nothing was refused there
    expect(records.filter((r) => r.type === 'refused')).toEqual([]);
    const events = await readFile(join(dir, 'events.jsonl'), 'utf8');
    expect(events).not.toContain('"approval.refused"');
    expect(`${events}\n${JSON.stringify(records)}`).not.toContain('operator');
    // the key is gone with the session
    expect(existsSync(join(dir, 'approvals.key'))).toBe(false);
  }, 240_000);

  it('doctor and exec say, naming the role and the line, that a full-access role leaves the channels unprotected', async () => {
    const open = await makeWorld({
      registry: echoServer('guarded', { tools: 'write!', approval: 'prompt' }),
      profile: PROFILE.replace('permissions = "workspace-write"', 'permissions = "full-access"'),
      modelUrl: fixture.model.baseUrl,
    });
    const doctor = await runInWorld(open, ['profile', 'doctor', open.packDir, '--json']);
    const found = (
      JSON.parse(doctor.stdout) as { diagnostics: { code: string; message: string }[] }
    ).diagnostics.filter((d) => d.code === 'approval-channel-unprotected');
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toContain('role `lead`');
    const exec = await runInWorld(open, ['exec', open.packDir, 'PLAIN']);
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stdout).toContain('PLAIN-DONE');
    expect(exec.stderr).toMatch(/approval-channel-unprotected.*role `lead`/);
    // at the pack's line, as doctor gives it
    const at =
      /(\S+profile\.toml):(\d+):\d+: warning\[approval-channel-unprotected\] agents\.lead\.permissions/.exec(
        exec.stderr,
      );
    expect(at?.[1], exec.stderr).toBe(join(open.packDir, 'profile.toml'));
    const packLines = (await readFile(join(open.packDir, 'profile.toml'), 'utf8')).split('\n');
    expect(packLines[Number(at?.[2]) - 1]).toContain('permissions = "full-access"');
    // the sandboxed profile gets no such warning
    const sandboxed = await runInWorld(world, ['profile', 'doctor', world.packDir, '--json']);
    expect(sandboxed.stdout).not.toContain('approval-channel-unprotected');
  }, 120_000);

  it('cannot pass off an answer by taking the socket’s place: the CLI refuses a listener not the session’s', async () => {
    newAttack(1_000);
    // the state directory of these tests lies under /tmp, a writable root of workspace-write
    const w = await guardedWorld();
    const exec = startInWorld(w, ['exec', w.packDir, 'SPAWN', '--approval-timeout', '30']);
    const id = await pendingSession(w);
    const { dir, record } = await onlySession(w);
    const ready = join(w.workDir, 'FAKE-READY');
    startAttack(
      [process.execPath, await inWorkDir(w, FAKE), String(record.approvals_socket), ready]
        .map((a) => `'${a}'`)
        .join(' '),
    );
    // from the model's shell, the socket's directory is out of reach
    await waitFor(() => existsSync(ready), 90_000);
    expect(await readFile(ready, 'utf8')).toMatch(/^failed E[A-Z]+$/);
    // a same-user process outside the session can take the socket's place
    const outsideReady = join(w.root, 'OUTSIDE-READY');
    const outside = spawn(process.execPath, [FAKE, String(record.approvals_socket), outsideReady], {
      stdio: 'ignore',
    });
    await waitFor(() => existsSync(outsideReady), 30_000);
    expect(await readFile(outsideReady, 'utf8')).toBe('listening');
    const approved = await runInWorld(w, ['session', 'approve', id, 'a1']);
    expect(approved.code).toBe(1);
    // the socket's listener is not the session's supervisor: the CLI sends it nothing
    expect(approved.stderr).toContain('error[listener-not-verified]');
    const listed = await runInWorld(w, ['session', 'approvals', id, '--json']);
    expect(listed.stdout).not.toContain('operator');
    const done = await exec.done;
    expect(done.code, done.stderr).toBe(0);
    expect(existsSync(join(w.root, 'guarded-calls.jsonl'))).toBe(false);
    const records = await readFile(join(dir, 'approvals.jsonl'), 'utf8');
    expect(records).toMatch(/"type":"answered"[^\n]*"decision":"deny"[^\n]*"how":"timeout"/);
    expect(records).not.toContain('operator');
    outside.kill('SIGKILL');
  }, 240_000);
});
