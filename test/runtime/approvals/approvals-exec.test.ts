/**
 * Approvals reach a person, with real Codex and a scripted model: an MCP tool whose approval mode
 * is `prompt` (the echo-server fixture, which logs every call that reaches it) is called by the
 * `exec` root and by a participant. The request waits in the session's queue, is listed and
 * answered from a second process (the built CLI), and the tool runs exactly once when approved,
 * never when denied or left to time out. `session logs --follow` streams while the session runs.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import {
  CLI,
  echoServer,
  makeWorld,
  profileToml,
  runInWorld,
  startInWorld,
  waitFor,
  type RunningCli,
  type World,
} from '../../support/world.js';

const GUARD_CANARY = 'guard-token-canary-7a7a7a';

interface Approval {
  id: string;
  session: string;
  process: string;
  role: string;
  kind: string;
  server: string | null;
  tool: string | null;
  arguments: string;
  requested_at: string;
  expires_at: string;
}

function callLog(world: World): string {
  return join(world.root, 'guarded-calls.jsonl');
}

function registry(root: string): string {
  return echoServer('guarded', {
    tools: 'write!',
    approval: 'prompt',
    envVars: ['GUARD_TOKEN'],
    args: ['--call-log', join(root, 'guarded-calls.jsonl')],
  });
}

const PROFILE = profileToml('approvals', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'], grants: { guarded: {} } },
  worker: { grants: { guarded: {} } },
});

function isRole(request: ModelRequest, marker: string): boolean {
  return request.developerTexts.some((t) => t.includes(marker));
}

/** The tag of a task such as `ROOT-CALL t1` or `WORKER-CALL t1`. */
function tagOf(request: ModelRequest, word: string): string | undefined {
  for (const text of request.userTexts) {
    const match = new RegExp(`${word} (\\S+)`).exec(text);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

function guardedCall(tag: string): ScriptedItem {
  // the arguments carry a credential value, which the queue must show masked; a call meant to
  // reach the server carries none (the gateway refuses a credential in arguments, approved or not)
  const text = tag.endsWith('-approve') ? tag : `${tag} ${GUARD_CANARY}`;
  return { type: 'function_call', namespace: 'mcp__guarded', name: 'write', arguments: { text } };
}

function mesh(name: string, args: Record<string, unknown>): ScriptedItem {
  return { type: 'function_call', namespace: 'mcp__mmo_mesh', name, arguments: args };
}

function script(request: ModelRequest): ScriptedItem[] {
  const step = request.toolOutputs.length;
  const last = request.toolOutputs.at(-1)?.output ?? '';
  if (isRole(request, 'ROLE-WORKER')) {
    const tag = tagOf(request, 'WORKER-CALL') ?? 'none';
    return step === 0 ? [guardedCall(tag)] : [{ type: 'message', text: `WORKER-SAW ${last}` }];
  }
  const rootTag = tagOf(request, 'ROOT-CALL');
  if (rootTag !== undefined) {
    return step === 0 ? [guardedCall(rootTag)] : [{ type: 'message', text: `ROOT-SAW ${last}` }];
  }
  const spawnTag = tagOf(request, 'SPAWN') ?? 'none';
  switch (step) {
    case 0:
      return [mesh('spawn_participant', { role: 'worker', task: `WORKER-CALL ${spawnTag}` })];
    case 1:
      return [mesh('wait_participant', { participant: 'worker-1' })];
    default:
      return [{ type: 'message', text: `LEAD-SAW ${last}` }];
  }
}

const fixture = useScriptedModel(script);

async function newWorld(): Promise<World> {
  return makeWorld({
    registry,
    profile: PROFILE,
    modelUrl: fixture.model.baseUrl,
    credentials: `GUARD_TOKEN=${GUARD_CANARY}\n`,
  });
}

async function calls(world: World): Promise<{ tool: string; arguments: { text?: string } }[]> {
  if (!existsSync(callLog(world))) return [];
  const text = await readFile(callLog(world), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { tool: string; arguments: { text?: string } });
}

async function sessionId(world: World): Promise<string> {
  let id: string | undefined;
  await waitFor(async () => {
    const listed = await runInWorld(world, ['session', 'list', '--json']);
    const sessions = (JSON.parse(listed.stdout) as { sessions: { id: string }[] }).sessions;
    id = sessions[0]?.id;
    return id !== undefined;
  }, 60_000);
  return id ?? '';
}

/** Waits, through a second codex-mmo process, until the session has a pending request. */
async function pendingApproval(world: World, id: string): Promise<Approval> {
  let found: Approval | undefined;
  await waitFor(async () => {
    const listed = await runInWorld(world, ['session', 'approvals', id, '--json']);
    expect(listed.code, listed.stderr + listed.stdout).toBe(0);
    found = (JSON.parse(listed.stdout) as { approvals: Approval[] }).approvals[0];
    return found !== undefined;
  }, 90_000);
  if (found === undefined) throw new Error('no approval');
  return found;
}

async function jsonLines(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** `codex-mmo ARGS` against `world`, with its output so far readable while it runs. */
function startFollower(
  world: World,
  args: readonly string[],
): {
  output: () => string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
} {
  const child = spawn(process.execPath, [CLI, ...args, ...world.dirArgs], {
    cwd: world.workDir,
    env: world.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 140_000);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { output: () => stdout, done };
}

interface Scenario {
  readonly world: World;
  readonly exec: RunningCli;
  readonly id: string;
  readonly approval: Approval;
}

async function startScenario(prompt: string, timeoutSec: number): Promise<Scenario> {
  const world = await newWorld();
  const exec = startInWorld(world, [
    'exec',
    world.packDir,
    prompt,
    '--approval-timeout',
    String(timeoutSec),
  ]);
  const id = await sessionId(world);
  const approval = await pendingApproval(world, id);
  return { world, exec, id, approval };
}

function expectRequest(approval: Approval, id: string, process: string, role: string): void {
  expect(approval).toMatchObject({
    session: id,
    process,
    role,
    kind: 'mcp_tool_call',
    server: 'guarded',
    tool: 'write',
  });
  expect(approval.id).toMatch(/^a\d+$/);
  if (!approval.arguments.includes('-approve')) expect(approval.arguments).toContain('***');
  expect(approval.arguments).not.toContain(GUARD_CANARY);
  expect(Date.parse(approval.expires_at)).toBeGreaterThan(Date.parse(approval.requested_at));
}

describe('approvals of the exec root', () => {
  it('runs the tool exactly once when a person approves it from another terminal', async () => {
    const { world, exec, id, approval } = await startScenario('ROOT-CALL r-approve', 120);
    expectRequest(approval, id, 'root', 'lead');
    // nothing reached the server while the request waited
    expect(await calls(world)).toEqual([]);
    const shown = await runInWorld(world, ['session', 'show', id, '--json']);
    expect((JSON.parse(shown.stdout) as { pending_approvals: number }).pending_approvals).toBe(1);

    const approved = await runInWorld(world, ['session', 'approve', id, approval.id]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`Approved ${approval.id}`);
    const result = await exec.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('ROOT-SAW');
    expect(result.stdout).not.toContain(GUARD_CANARY);
    expect(result.stderr).toContain(`approval ${approval.id} requested`);

    const reached = await calls(world);
    expect(reached).toHaveLength(1);
    expect(reached[0]?.arguments.text).toContain('r-approve');

    // answered at most once, and recorded with who answered, how and when
    const again = await runInWorld(world, ['session', 'approve', id, approval.id]);
    expect(again.code).toBe(1);
    const dir = join(world.stateDir, 'sessions', id);
    const records = await jsonLines(join(dir, 'approvals.jsonl'));
    expect(records.map((r) => r.type)).toEqual(['requested', 'answered']);
    expect(records[1]).toMatchObject({
      id: approval.id,
      decision: 'approve',
      by: userInfo().username,
      how: 'cli',
    });
    const events = await jsonLines(join(dir, 'events.jsonl'));
    const types = events.map((e) => `${String(e.process)}:${String(e.type)}`);
    const order = [
      'root:process.started',
      'root:approval.requested',
      'root:approval.answered',
      'root:tool_call.completed',
      'root:turn.completed',
      'root:process.ended',
    ].map((t) => types.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      server: 'guarded',
      tool: 'write',
      status: 'completed',
    });
    const written = [
      await readFile(join(dir, 'events.jsonl'), 'utf8'),
      await readFile(join(dir, 'approvals.jsonl'), 'utf8'),
      result.stderr,
    ].join('\n');
    expect(written).not.toContain(GUARD_CANARY);
  }, 150_000);

  it('never calls the tool when a person denies it', async () => {
    const { world, exec, id, approval } = await startScenario('ROOT-CALL r-deny', 120);
    expectRequest(approval, id, 'root', 'lead');
    const denied = await runInWorld(world, [
      'session',
      'deny',
      id,
      approval.id,
      '--reason',
      'not today',
    ]);
    expect(denied.code, denied.stderr).toBe(0);
    const result = await exec.done;
    expect(result.code, result.stderr).toBe(0);
    expect(await calls(world)).toEqual([]);
    const dir = join(world.stateDir, 'sessions', id);
    const records = await jsonLines(join(dir, 'approvals.jsonl'));
    expect(records[1]).toMatchObject({ decision: 'deny', how: 'cli', reason: 'not today' });
    // the model reads who decided and why, not Codex's bare "user rejected"
    expect(result.stdout).toContain(
      "codex-mmo did not run guarded.write for role 'lead': a person denied it (reason: not today) [approval-denied]",
    );
    expect(result.stdout).not.toContain('user rejected');
  }, 150_000);

  it('denies a request nobody answers once its time is up', async () => {
    const { world, exec, id, approval } = await startScenario('ROOT-CALL r-timeout', 3);
    expectRequest(approval, id, 'root', 'lead');
    const result = await exec.done;
    expect(result.code, result.stderr).toBe(0);
    expect(await calls(world)).toEqual([]);
    const records = await jsonLines(join(world.stateDir, 'sessions', id, 'approvals.jsonl'));
    expect(records[1]).toMatchObject({ decision: 'deny', how: 'timeout', by: 'codex-mmo' });
    expect(result.stdout).toMatch(
      /ROOT-SAW [^]*codex-mmo did not run guarded\.write for role 'lead': nobody answered its approval request in time \[approval-expired\]/,
    );
    const late = await runInWorld(world, ['session', 'approve', id, approval.id]);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/session-not-running|approval-already-answered/);
  }, 150_000);
});

describe('approvals of a participant', () => {
  it('runs the tool exactly once when approved, while session logs --follow streams', async () => {
    const world = await newWorld();
    const exec = startInWorld(world, [
      'exec',
      world.packDir,
      'SPAWN p-approve',
      '--approval-timeout',
      '120',
    ]);
    const id = await sessionId(world);
    const follow = startFollower(world, ['session', 'logs', id, '--follow', '--json']);
    const approval = await pendingApproval(world, id);
    expectRequest(approval, id, 'worker-1', 'worker');
    expect(await calls(world)).toEqual([]);

    // the follower prints the request while the session still waits for the answer
    await waitFor(() => follow.output().includes('"approval.requested"'), 20_000);
    const text = await runInWorld(world, ['session', 'logs', id, '--process', 'worker-1']);
    expect(text.stdout).toContain(`approval ${approval.id} requested: tool guarded.write`);
    expect(text.stdout).not.toContain('root (lead)');

    const approved = await runInWorld(world, ['session', 'approve', id, approval.id]);
    expect(approved.code, approved.stderr).toBe(0);
    const result = await exec.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-SAW');
    expect(result.stdout).toContain('WORKER-SAW');
    const reached = await calls(world);
    expect(reached).toHaveLength(1);
    expect(reached[0]?.arguments.text).toContain('p-approve');

    // the follower ends by itself with the session, having seen everything in order
    const followed = await follow.done;
    expect(followed.code, followed.stderr).toBe(0);
    const events = followed.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { process: string; type: string; server?: string });
    const seq = events.map((e) => `${e.process}:${e.type}`);
    const order = [
      'root:process.started',
      'root:tool_call.started',
      'worker-1:process.started',
      'worker-1:approval.requested',
      'worker-1:approval.answered',
      'worker-1:tool_call.completed',
      'worker-1:message',
      'root:process.ended',
    ].map((t) => seq.indexOf(t));
    expect(
      order.every((i) => i >= 0),
      seq.join('\n'),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(
      events.find((e) => e.process === 'root' && e.type === 'tool_call.started'),
    ).toMatchObject({ server: 'mmo_mesh' });
    expect(followed.stdout).not.toContain(GUARD_CANARY);
  }, 150_000);

  it('never calls the tool when denied', async () => {
    const { world, exec, id, approval } = await startScenario('SPAWN p-deny', 120);
    expectRequest(approval, id, 'worker-1', 'worker');
    const denied = await runInWorld(world, ['session', 'deny', id, approval.id]);
    expect(denied.code, denied.stderr).toBe(0);
    const result = await exec.done;
    expect(result.code, result.stderr).toBe(0);
    expect(await calls(world)).toEqual([]);
    // the worker's model reads codex-mmo's refusal (no reason was given)
    expect(result.stdout).toContain(
      "codex-mmo did not run guarded.write for role 'worker': a person denied it [approval-denied]",
    );
  }, 150_000);

  it('never calls the tool when nobody answers in time', async () => {
    const { world, exec, id, approval } = await startScenario('SPAWN p-timeout', 3);
    expectRequest(approval, id, 'worker-1', 'worker');
    const result = await exec.done;
    expect(result.code, result.stderr).toBe(0);
    expect(await calls(world)).toEqual([]);
    const records = await jsonLines(join(world.stateDir, 'sessions', id, 'approvals.jsonl'));
    expect(records[1]).toMatchObject({ decision: 'deny', how: 'timeout' });
  }, 150_000);

  it('denies what is pending when the supervisor is killed outright (fail closed)', async () => {
    const { world, exec, id, approval } = await startScenario('SPAWN p-killed', 120);
    expectRequest(approval, id, 'worker-1', 'worker');
    exec.kill('SIGKILL');
    expect((await exec.done).signal).toBe('SIGKILL');
    // the app-servers lose their client and end; nothing ever reaches the server
    await waitFor(async () => {
      const shown = await runInWorld(world, ['session', 'show', id, '--json']);
      return (JSON.parse(shown.stdout) as { status: string }).status !== 'running';
    }, 30_000);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await calls(world)).toEqual([]);
    const late = await runInWorld(world, ['session', 'approve', id, approval.id]);
    expect(late.code).toBe(1);
    expect(await calls(world)).toEqual([]);
  }, 150_000);
});
