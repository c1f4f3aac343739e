/**
 * A native role's approvals, with real Codex in real `codex-mmo exec` sessions: the native role
 * `aide` (granted `guarded`, whose tool always asks) runs inside the lead's process. Its request
 * is listed, stored and logged as `aide`'s; the lead's own call of that tool (not granted to the
 * lead) is refused before anyone is asked; a denied approval and a call to a tool no thread was
 * offered show in `session calls` and `session logs`. Every way the session can end while the
 * aide's request waits — `session stop`, SIGINT, SIGTERM, the root's turn ending — ends cleanly:
 * the request is closed as `session-ended`, no stack trace, the documented status and exit code,
 * and no socket left behind.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { sessionCalls } from '../../support/session-calls.js';
import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import {
  echoServer,
  makeWorld,
  profileToml,
  runInWorld,
  startCli,
  waitFor,
  type CliRun,
  type RunningCli,
  type World,
} from '../../support/world.js';

const PROFILE = profileToml('native-approvals', 'lead', {
  lead: { natives: ['aide'], grants: { notes: {} } },
  aide: { grants: { guarded: {} } },
});

/** A participant `worker` whose request waits while the session ends. */
const WITH_WORKER = profileToml('participant-approvals', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'] },
  worker: { grants: { guarded: {} } },
});

const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});

const isAide = (r: ModelRequest): boolean => r.developerTexts.some((t) => t.includes('ROLE-AIDE'));

/** Released by a test once the aide's request is pending: the lead then ends its turn. */
let releaseLead: () => void = () => undefined;

function script(request: ModelRequest): ScriptedItem[] | Promise<ScriptedItem[]> {
  const step = request.toolOutputs.length;
  if (request.developerTexts.some((t) => t.includes('ROLE-WORKER'))) {
    return [call('mcp__guarded', 'write', { text: 'worker-write' })];
  }
  if (request.userTexts.some((t) => t.includes('SPAWN'))) {
    if (step === 0)
      return [call('mcp__mmo_mesh', 'spawn_participant', { role: 'worker', task: 'go' })];
    return [call('mcp__mmo_mesh', 'wait_participant', { participant: 'worker-1' })];
  }
  if (isAide(request)) {
    if (step === 0) return [call('mcp__guarded', 'write', { text: 'aide-write' })];
    // a tool no thread of the process has (Codex answers it itself)
    if (step === 1) return [call('mcp__ghost', 'haunt', { text: 'boo' })];
    return [{ type: 'message', text: 'AIDE-DONE' }];
  }
  const prompt = request.userTexts.join('\n');
  if (step === 0)
    return [call('multi_agent_v1', 'spawn_agent', { agent_type: 'aide', message: 'write it' })];
  if (prompt.includes('LEAVE') && step === 1) {
    return new Promise((resolve) => {
      releaseLead = () => {
        resolve([{ type: 'message', text: 'LEAD-LEFT' }]);
      };
    });
  }
  if (step === 1) {
    const id = (JSON.parse(request.toolOutputs[0]?.output ?? '{}') as { agent_id?: string })
      .agent_id;
    return [call('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: 120_000 })];
  }
  // the lead names the aide's tool, which it is not granted
  if (step === 2) return [call('mcp__guarded', 'write', { text: 'lead-write' })];
  return [{ type: 'message', text: 'LEAD-DONE' }];
}

const fixture = useScriptedModel(script);

/** `codex-mmo exec PACK PROMPT` in `world`, with time for a loaded machine. */
function execIn(world: World, prompt: string): RunningCli {
  return startCli(
    ['exec', world.packDir, prompt, ...world.dirArgs],
    world.env,
    world.workDir,
    240_000,
  );
}

async function newWorld(profile = PROFILE): Promise<World> {
  return makeWorld({
    registry: (root) =>
      echoServer('guarded', {
        tools: 'write!',
        approval: 'prompt',
        args: ['--call-log', join(root, 'guarded-calls.jsonl')],
      }) + echoServer('notes', { tools: 'read' }),
    profile,
    modelUrl: fixture.model.baseUrl,
  });
}

interface Approval {
  id: string;
  process: string;
  role: string;
  server: string;
  tool: string;
}

async function sessionId(world: World): Promise<string> {
  let id = '';
  await waitFor(async () => {
    const ids = await readdir(join(world.stateDir, 'sessions')).catch(() => []);
    id = ids[0] ?? '';
    return id !== '';
  }, 60_000);
  return id;
}

async function pending(world: World, id: string): Promise<Approval> {
  let found: Approval | undefined;
  let last = '';
  // a session still starting has no approval socket yet: its answer is an error, asked again
  await waitFor(async () => {
    const listed = await runInWorld(world, ['session', 'approvals', id, '--json']);
    last = `${listed.stdout}${listed.stderr}`;
    const parsed = JSON.parse(listed.stdout || '{}') as { approvals?: Approval[] };
    found = parsed.approvals?.[0];
    return found !== undefined;
  }, 90_000).catch((error: unknown) => {
    throw new Error(`${String(error)}; last answer: ${last}`);
  });
  return found!;
}

async function lines(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function sockets(world: World, id: string): Promise<string[]> {
  const dir = join(world.stateDir, 'sessions', id);
  const record = JSON.parse(await readFile(join(dir, 'session.json'), 'utf8')) as {
    mesh_socket?: string;
    approvals_socket?: string;
  };
  const inDir = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.sock'));
  const named = [record.mesh_socket, record.approvals_socket].filter(
    (p): p is string => p !== undefined && existsSync(p),
  );
  return [...inDir, ...named];
}

describe("a native role's approvals", () => {
  let world: World;
  let id: string;
  let approval: Approval;
  let result: CliRun;
  /** The tool outputs the aide's model read. */
  let aideSaw: string[] = [];

  beforeAll(async () => {
    world = await newWorld();
    const exec = execIn(world, 'DENY it');
    id = await sessionId(world);
    approval = await pending(world, id);
    const denied = await runInWorld(world, ['session', 'deny', id, approval.id, '--reason', 'no']);
    expect(denied.code, denied.stderr).toBe(0);
    result = await exec.done;
    aideSaw = fixture.model.requests
      .filter(isAide)
      .flatMap((r) => r.toolOutputs.map((o) => o.output));
  }, 180_000);

  it("is listed and stored as the calling role's", async () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
    expect(approval).toMatchObject({
      process: 'root',
      role: 'aide',
      server: 'guarded',
      tool: 'write',
    });
    const records = await lines(join(world.stateDir, 'sessions', id, 'approvals.jsonl'));
    // the lead's own call of the tool was refused before anyone was asked
    expect(
      records.map((r) => `${String(r.type)}:${typeof r.role === 'string' ? r.role : ''}`),
    ).toEqual(['requested:aide', 'answered:']);
    expect(result.stderr).toMatch(/root \(aide\) approval a1 requested/);
    expect(await lines(join(world.root, 'guarded-calls.jsonl'))).toEqual([]);
    // the aide's model reads who turned its call away and why
    expect(aideSaw.join('\n')).toContain(
      "codex-mmo did not run guarded.write for role 'aide': a person denied it (reason: no) [approval-denied]",
    );
    expect(aideSaw.join('\n')).not.toContain('user rejected');
  });

  it('shows refused calls in session calls: a denied approval, a tool not offered, a tool outside the role grant', async () => {
    const calls = await sessionCalls(world, id);
    const refused = calls
      .filter((c) => c.outcome !== 'ok')
      .map((c) => `${String(c.role)} ${String(c.server)}.${String(c.tool)} ${String(c.reason)}`)
      .sort();
    expect(refused).toEqual([
      'aide ghost.haunt tool-not-offered',
      'aide guarded.write approval-denied',
      'lead guarded.write tool-not-granted-to-role',
    ]);
  });

  it('shows them in session logs, and filters by role name', async () => {
    const logs = await runInWorld(world, ['session', 'logs', id, '--json']);
    expect(logs.code, logs.stderr).toBe(0);
    const events = logs.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const refused = events
      .filter((e) => e.type === 'tool_call.refused')
      .map((e) => `${String(e.role)} ${String(e.server)}.${String(e.tool)} ${String(e.text)}`)
      .sort();
    expect(refused).toEqual([
      'aide ghost.haunt tool-not-offered',
      'aide guarded.write approval-denied',
      'lead guarded.write tool-not-granted-to-role',
    ]);
    expect(events.find((e) => e.type === 'approval.requested')).toMatchObject({ role: 'aide' });

    const aide = await runInWorld(world, ['session', 'logs', id, '--process', 'aide']);
    expect(aide.code, aide.stderr).toBe(0);
    expect(aide.stdout).toContain('root (aide) approval a1 requested');
    expect(aide.stdout).not.toContain('(lead)');

    const unknown = await runInWorld(world, ['session', 'logs', id, '--process', 'nobody']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no process or role 'nobody'");
    expect(unknown.stderr).toMatch(/known: .*aide.*lead.*root/);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('ending the session while a native role waits for approval', () => {
  async function endWith(
    end: (world: World, id: string, exec: RunningCli) => Promise<void>,
    prompt = 'HOLD',
    role = 'aide',
  ): Promise<{ world: World; id: string; result: CliRun }> {
    const world = await newWorld(role === 'aide' ? PROFILE : WITH_WORKER);
    const exec = execIn(world, prompt);
    const id = await sessionId(world);
    const waiting = await pending(world, id);
    expect(waiting.role).toBe(role);
    await end(world, id, exec);
    return { world, id, result: await exec.done };
  }

  async function expectClean(
    world: World,
    id: string,
    result: CliRun,
    status: string,
    code: number,
  ): Promise<void> {
    expect(result.stderr).not.toMatch(/ProcessError|Unhandled|\n\s+at /);
    expect(result.code, result.stderr).toBe(code);
    const dir = join(world.stateDir, 'sessions', id);
    const record = JSON.parse(await readFile(join(dir, 'session.json'), 'utf8')) as {
      status: string;
    };
    expect(record.status).toBe(status);
    const records = await lines(join(dir, 'approvals.jsonl'));
    expect(records.at(-1)).toMatchObject({
      type: 'answered',
      decision: 'deny',
      how: 'session-ended',
    });
    expect(await sockets(world, id)).toEqual([]);
    expect(await lines(join(world.root, 'guarded-calls.jsonl'))).toEqual([]);
  }

  it('session stop', async () => {
    const { world, id, result } = await endWith(async (w, sid) => {
      const stopped = await runInWorld(w, ['session', 'stop', sid]);
      expect(stopped.code, stopped.stderr).toBe(0);
    });
    await expectClean(world, id, result, 'stopped', 1);
  }, 180_000);

  it('SIGINT', async () => {
    const { world, id, result } = await endWith((_w, _id, exec) => {
      exec.kill('SIGINT');
      return Promise.resolve();
    });
    await expectClean(world, id, result, 'stopped', 1);
  }, 180_000);

  it('SIGTERM', async () => {
    const { world, id, result } = await endWith((_w, _id, exec) => {
      exec.kill('SIGTERM');
      return Promise.resolve();
    });
    await expectClean(world, id, result, 'stopped', 1);
  }, 180_000);

  it("session stop while a participant's request waits", async () => {
    const { world, id, result } = await endWith(
      async (w, sid) => {
        const stopped = await runInWorld(w, ['session', 'stop', sid]);
        expect(stopped.code, stopped.stderr).toBe(0);
      },
      'SPAWN',
      'worker',
    );
    await expectClean(world, id, result, 'stopped', 1);
  }, 180_000);

  it("the root's turn ending", async () => {
    const { world, id, result } = await endWith(() => {
      releaseLead();
      return Promise.resolve();
    }, 'LEAVE');
    await expectClean(world, id, result, 'ended', 0);
    expect(result.stdout).toContain('LEAD-LEFT');
  }, 180_000);
});
