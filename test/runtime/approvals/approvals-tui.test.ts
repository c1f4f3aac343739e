/**
 * Participants' approvals reach the person at the TUI of an interactive `run`, with real Codex in
 * a pseudo-terminal and a scripted model: the root spawns a worker whose `prompt` tool call (the
 * echo-server fixture, which logs every call that reaches it) waits in the session's queue and is
 * shown in the root's TUI as an MCP elicitation from `mmo_mesh`. Allow runs it once, Deny never
 * lets it reach the server, and an answer from `session approve` in a second terminal wins over
 * the TUI's later one. `session logs --follow --json` streams the root's rollout meanwhile. A
 * participant's native role is asked about as that role, and the participant's own call of a
 * tool outside its grant is refused and recorded before anyone is asked.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it, onTestFinished } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { readCalls } from '../../../src/runtime/gateway/call-log.js';
import { folderTrustAnswerer, KEYS, startTui, typeUntil, type Tui } from '../../support/tui.js';
import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import {
  CLI,
  echoServer,
  makeWorld,
  processesMentioning,
  profileToml,
  runInWorld,
  waitFor,
  type World,
} from '../../support/world.js';

const GUARD_CANARY = 'guard-token-canary-5c5c5c';

function isRole(request: ModelRequest, marker: string): boolean {
  return request.developerTexts.some((t) => t.includes(marker));
}

function tagOf(request: ModelRequest, word: string): string | undefined {
  for (const text of request.userTexts) {
    const match = new RegExp(`${word} (\\S+)`).exec(text);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

/** The worker of a `NATIVE` run: its own call outside its grant, then its native `aide`'s. */
function nativeScript(request: ModelRequest, step: number): ScriptedItem[] {
  const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
    type: 'function_call',
    namespace,
    name,
    arguments: args,
  });
  if (isRole(request, 'ROLE-AIDE')) {
    return step === 0
      ? [call('mcp__guarded', 'write', { text: 'aide-asks' })]
      : [{ type: 'message', text: 'AIDE-DONE' }];
  }
  if (step === 0) return [call('mcp__guarded', 'write', { text: 'worker-outside-grant' })];
  if (step === 1)
    return [call('multi_agent_v1', 'spawn_agent', { agent_type: 'aide', message: 'go' })];
  if (step === 2) {
    const id = (JSON.parse(request.toolOutputs[1]?.output ?? '{}') as { agent_id?: string })
      .agent_id;
    return [call('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: 240_000 })];
  }
  return [{ type: 'message', text: 'WORKER-SAW native' }];
}

function script(request: ModelRequest): ScriptedItem[] {
  const step = request.toolOutputs.length;
  const last = request.toolOutputs.at(-1)?.output ?? '';
  if (isRole(request, 'ROLE-AIDE') || tagOf(request, 'WORKER-CALL') === 'native') {
    return nativeScript(request, step);
  }
  if (isRole(request, 'ROLE-WORKER')) {
    const tag = tagOf(request, 'WORKER-CALL') ?? 'none';
    // a call meant to be denied carries a credential value, which the TUI must show masked
    const text = tag.endsWith('-deny') ? `${tag} ${GUARD_CANARY}` : tag;
    return step === 0
      ? [{ type: 'function_call', namespace: 'mcp__guarded', name: 'write', arguments: { text } }]
      : [{ type: 'message', text: `WORKER-SAW ${last}` }];
  }
  const tag = tagOf(request, 'SPAWN') ?? 'none';
  switch (step) {
    case 0:
      return [
        {
          type: 'function_call',
          namespace: 'mcp__mmo_mesh',
          name: 'spawn_participant',
          arguments: { role: 'worker', task: `WORKER-CALL ${tag}` },
        },
      ];
    case 1:
      return [
        {
          type: 'function_call',
          namespace: 'mcp__mmo_mesh',
          name: 'wait_participant',
          arguments: { participant: 'worker-1' },
        },
      ];
    default:
      return [{ type: 'message', text: `LEAD-SAW-${tag}` }];
  }
}

const fixture = useScriptedModel(script);

/** The drawn text without whitespace: the TUI moves the cursor instead of printing spaces. */
function compact(tui: Tui): string {
  return tui.text().replace(/\s+/g, '');
}

interface Run {
  readonly world: World;
  readonly tui: Tui;
  readonly id: string;
  /** How many model requests there were before this run started. */
  readonly requestsBefore: number;
}

const started: Run[] = [];

afterEach(async () => {
  // end what the test started: the TUI, then whatever of its world still runs (0.171's daemon)
  for (const run of started.splice(0)) {
    run.tui.type(KEYS.ctrlC);
    await new Promise((r) => setTimeout(r, 500));
    run.tui.type(KEYS.ctrlC);
    const ended = await Promise.race([
      run.tui.exited.then(() => true),
      new Promise<boolean>((r) =>
        setTimeout(() => {
          r(false);
        }, 20_000),
      ),
    ]);
    if (!ended) run.tui.child.kill('SIGKILL');
    for (const pid of await processesMentioning(run.world.root)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

async function calls(world: World): Promise<{ arguments: { text?: string } }[]> {
  const file = join(world.root, 'guarded-calls.jsonl');
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { arguments: { text?: string } });
}

async function approvalRecords(world: World, id: string): Promise<Record<string, unknown>[]> {
  const file = join(world.stateDir, 'sessions', id, 'approvals.jsonl');
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const PROFILE = profileToml('approvals', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'], grants: { guarded: {} } },
  worker: { grants: { guarded: {} } },
});

/** The worker is not granted `guarded`; its native role `aide` is. */
const NATIVE_PROFILE = profileToml('native-approvals', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'] },
  worker: { natives: ['aide'] },
  aide: { grants: { guarded: {} } },
});

/** Starts `codex-mmo run` in a pseudo-terminal with the first prompt `SPAWN <tag>`. */
async function startRun(tag: string, profile = PROFILE): Promise<Run> {
  const world = await makeWorld({
    registry: (root) =>
      echoServer('guarded', {
        tools: 'write!',
        approval: 'prompt',
        envVars: ['GUARD_TOKEN'],
        args: ['--call-log', join(root, 'guarded-calls.jsonl')],
      }),
    profile,
    modelUrl: fixture.model.baseUrl,
    credentials: `GUARD_TOKEN=${GUARD_CANARY}\n`,
  });
  const tui = startTui(
    process.execPath,
    [
      CLI,
      'run',
      world.packDir,
      ...world.dirArgs,
      '--approval-timeout',
      '300',
      '--',
      `SPAWN ${tag}`,
    ],
    { cwd: world.workDir, env: world.env, cols: 160, rows: 50 },
  );
  const run = { world, tui, id: '', requestsBefore: fixture.model.requests.length };
  started.push(run);
  const id = /codex-mmo: session (\S+)/;
  await waitFor(() => id.test(tui.text()) || tui.child.exitCode !== null, 60_000);
  const match = id.exec(tui.text());
  if (match?.[1] === undefined) throw new Error(`no session:\n${tui.text()}`);
  return { ...run, id: match[1] };
}

/** Waits for the participant's request in the TUI, opening the folder when Codex asks first. */
async function waitForPrompt(run: Run, role = 'worker', ms = 150_000): Promise<void> {
  const prompt = `codex-mmoapprovala1:participantworker-1(role${role})askstocalltool'write'ofMCPserver'guarded'.`;
  // 0.171 asks how to open an untrusted folder before the first turn
  const answerTrust = folderTrustAnswerer(
    run.tui,
    () => fixture.model.requests.length > run.requestsBefore,
  );
  await waitFor(() => {
    answerTrust();
    const text = compact(run.tui);
    if (run.tui.child.exitCode !== null) throw new Error(`the TUI ended:\n${run.tui.text()}`);
    return text.includes(prompt) && text.includes('1.Allow') && text.includes('2.Deny');
  }, ms).catch((error: unknown) => {
    throw new Error(`${String(error)}; the screen:\n${run.tui.text().slice(-4000)}`);
  });
}

async function waitForScreen(run: Run, marker: string): Promise<void> {
  await waitFor(() => compact(run.tui).includes(marker), 120_000).catch((error: unknown) => {
    throw new Error(`no ${marker}: ${String(error)}; the screen:\n${run.tui.text().slice(-4000)}`);
  });
}

/**
 * Answers the TUI's prompt for a1 with `key`, typed again every few seconds until the answer is
 * recorded: a key typed while the prompt is still being drawn can be lost, and the option's
 * number chooses the same answer however often it is typed.
 */
async function answerInTui(run: Run, key: string): Promise<void> {
  await typeUntil(
    run.tui,
    key,
    async () => answers(await approvalRecords(run.world, run.id)).length > 0,
  ).catch((error: unknown) => {
    throw new Error(`no answer: ${String(error)}`);
  });
}

function answers(records: Record<string, unknown>[]): Record<string, unknown>[] {
  return records.filter((r) => r.type === 'answered');
}

/** `codex-mmo ARGS` against `world`, its output readable while it runs. */
function startFollower(world: World, args: readonly string[]): { output: () => string } {
  const child = spawn(process.execPath, [CLI, ...args, ...world.dirArgs], {
    cwd: world.workDir,
    env: world.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 200_000);
  child.on('close', () => {
    clearTimeout(timer);
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  return { output: () => stdout };
}

describe('participants approvals in the TUI of an interactive run', () => {
  it('runs the tool exactly once when the person allows it in the TUI, and logs follow the root', async () => {
    const run = await startRun('t-approve');
    const follower = startFollower(run.world, ['session', 'logs', run.id, '--follow', '--json']);
    await waitForPrompt(run);
    // nothing reached the server while the request waited, and the queue lists it
    expect(await calls(run.world)).toEqual([]);
    const listed = await runInWorld(run.world, ['session', 'approvals', run.id, '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      approvals: [{ id: 'a1', process: 'worker-1', role: 'worker', server: 'guarded' }],
    });

    await answerInTui(run, '1'); // 1. Allow
    await waitForScreen(run, 'LEAD-SAW-t-approve');
    expect((await calls(run.world)).map((c) => c.arguments.text)).toEqual(['t-approve']);
    const recorded = answers(await approvalRecords(run.world, run.id));
    expect(recorded).toEqual([
      expect.objectContaining({
        id: 'a1',
        decision: 'approve',
        how: 'tui',
        by: userInfo().username,
      }),
    ]);

    // `session logs --follow` from another process showed the live root: turns, tool calls, messages
    await waitFor(() => follower.output().includes('LEAD-SAW-t-approve'), 60_000);
    const events = follower
      .output()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const root = events.filter((e) => e.process === 'root');
    expect(root.map((e) => e.type)).toContain('turn.started');
    expect(root).toContainEqual(
      expect.objectContaining({
        type: 'tool_call.started',
        server: 'mmo_mesh',
        tool: 'spawn_participant',
      }),
    );
    expect(root).toContainEqual(
      expect.objectContaining({
        type: 'tool_call.started',
        server: 'mmo_mesh',
        tool: 'wait_participant',
      }),
    );
    expect(root).toContainEqual(
      expect.objectContaining({
        type: 'message',
        text: expect.stringContaining('LEAD-SAW-t-approve') as string,
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'approval.answered', approval: 'a1', how: 'tui' }),
    );
    // the follower is still following: the session is live
    expect(run.tui.child.exitCode).toBeNull();
  }, 300_000);

  it('never lets the tool reach the server when the person denies it in the TUI', async () => {
    const run = await startRun('t-deny');
    await waitForPrompt(run);
    // the prompt names the request, never the credential value in its arguments
    expect(compact(run.tui)).toContain('Arguments:{"text":"t-deny***"}');
    expect(run.tui.text()).not.toContain(GUARD_CANARY);

    await answerInTui(run, '2'); // 2. Deny
    await waitForScreen(run, 'LEAD-SAW-t-deny');
    expect(await calls(run.world)).toEqual([]);
    expect(answers(await approvalRecords(run.world, run.id))).toEqual([
      expect.objectContaining({ id: 'a1', decision: 'deny', how: 'tui', by: userInfo().username }),
    ]);
    expect(run.tui.text()).not.toContain(GUARD_CANARY);
  }, 300_000);

  it("asks only about a call the calling role may make, and names that role: a participant's native role", async () => {
    const run = await startRun('native', NATIVE_PROFILE);
    // the worker's own turn and its native role's come first: more time on a loaded machine
    await waitForPrompt(run, 'aide', 300_000);
    // the worker's own call of guarded.write, outside its grant, was refused before anyone was asked
    const records = await approvalRecords(run.world, run.id);
    expect(records.filter((r) => r.type === 'requested')).toEqual([
      expect.objectContaining({ id: 'a1', process: 'worker-1', role: 'aide', tool: 'write' }),
    ]);
    const refused = (await readCalls(join(run.world.stateDir, 'sessions', run.id))).calls.filter(
      (c) => c.process === 'worker-1' && c.server === 'guarded' && c.outcome === 'denied',
    );
    expect(refused).toEqual([
      expect.objectContaining({
        role: 'worker',
        tool: 'write',
        reason: expect.stringMatching(/^tool-not-(offered|granted-to-role)$/) as unknown,
      }),
    ]);
    expect(compact(run.tui)).not.toContain('(roleworker)asks');

    await answerInTui(run, '2'); // 2. Deny
    await waitForScreen(run, 'LEAD-SAW-native');
    expect(await calls(run.world)).toEqual([]);
    expect(answers(await approvalRecords(run.world, run.id))).toEqual([
      expect.objectContaining({ id: 'a1', decision: 'deny', how: 'tui' }),
    ]);
  }, 480_000);

  it('takes the first answer: session approve from another terminal wins over the TUI', async () => {
    const run = await startRun('t-cli');
    await waitForPrompt(run);
    const approved = await runInWorld(run.world, ['session', 'approve', run.id, 'a1']);
    expect(approved.code, approved.stderr).toBe(0);
    await waitForScreen(run, 'LEAD-SAW-t-cli');
    expect(await calls(run.world)).toHaveLength(1);

    // the person answers the (withdrawn) prompt in the TUI afterwards: Deny changes nothing
    run.tui.type('2'); // 2. Deny
    await new Promise((r) => setTimeout(r, 3000));
    expect(await calls(run.world)).toHaveLength(1);
    const again = await runInWorld(run.world, ['session', 'deny', run.id, 'a1']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already answered');
    expect(answers(await approvalRecords(run.world, run.id))).toEqual([
      expect.objectContaining({ id: 'a1', decision: 'approve', how: 'cli' }),
    ]);
  }, 300_000);
});
