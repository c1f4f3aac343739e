/**
 * Requests that arrive while a real `codex-mmo exec` session is stopping, with real Codex and the
 * scripted model: a participant `worker` waits for the approval of `guarded.write` when the
 * session gets SIGTERM; the denial (`session-ended`) wakes its model, which then calls
 * `notes.read` (no approval) and `guarded.write` again. Both arrive after the stop began: the
 * tool call is refused by the gateway and the approval request is closed at once, both as
 * `session-ended`, recorded, and neither reaches its server. The root's Codex is a wrapper that
 * holds its exit until the test has seen both, so the order is certain. The session ends
 * `stopped`, exit 1, no stack trace, no socket and no process left.
 */
import { existsSync } from 'node:fs';
import { chmod, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import {
  CODEX,
  HeldRequests,
  SPAWN_WORKER,
  echoServer,
  makeWorld,
  processesMentioning,
  profileToml,
  startCli,
  waitFor,
  type World,
} from '../../support/world.js';

const PROFILE = profileToml('stopping-requests', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'] },
  worker: { grants: { guarded: {}, notes: {} } },
});

const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});

const held = new HeldRequests();

function script(request: ModelRequest): ScriptedItem[] | Promise<ScriptedItem[]> {
  const step = request.toolOutputs.length;
  if (request.developerTexts.some((t) => t.includes('ROLE-WORKER'))) {
    if (step === 0) return [call('mcp__guarded', 'write', { text: 'asked-before-stop' })];
    // woken by the denial the stop gave: both of these come while the session is stopping
    if (step === 1) {
      return [
        call('mcp__notes', 'read', { text: 'called-while-stopping' }),
        call('mcp__guarded', 'write', { text: 'asked-while-stopping' }),
      ];
    }
    return [{ type: 'message', text: 'WORKER-DONE' }];
  }
  if (step === 0) return [SPAWN_WORKER];
  return held.hold();
}

const fixture = useScriptedModel(script, {
  release: () => {
    held.releaseAll();
  },
});

/**
 * A Codex that, run as the root's app-server (its CODEX_HOME is the lead's home), holds the
 * supervisor's `turn/interrupt` and the end of its input until `release` exists: the session's
 * stop waits for the root, so what the participant does meanwhile happens while the session is
 * stopping. Every other use of it is plain Codex.
 */
async function slowRootCodex(world: World, release: string): Promise<string> {
  const path = join(world.root, 'codex-slow-root.mjs');
  const body = `#!${process.execPath}
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
const release = ${JSON.stringify(release)};
const root = (process.env.CODEX_HOME ?? '').endsWith('/homes/lead') && process.argv[2] === 'app-server';
const child = spawn(${JSON.stringify(CODEX)}, process.argv.slice(2), {
  stdio: [root ? 'pipe' : 'inherit', 'inherit', 'inherit'],
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
const later = (fn) => {
  const timer = setInterval(() => {
    if (!existsSync(release)) return;
    clearInterval(timer);
    fn();
  }, 20);
};
if (root) {
  process.on('SIGTERM', () => undefined);
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    for (let at = pending.indexOf('\\n'); at >= 0; at = pending.indexOf('\\n')) {
      const line = pending.slice(0, at + 1);
      pending = pending.slice(at + 1);
      if (line.includes('"turn/interrupt"')) later(() => child.stdin.write(line));
      else child.stdin.write(line);
    }
  });
  process.stdin.on('end', () => later(() => child.stdin.end()));
}
`;
  await writeFile(path, body);
  await chmod(path, 0o755);
  return path;
}

async function lines(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('a request that arrives while the session is stopping', () => {
  it('is refused or closed as session-ended, recorded, and never reaches a server', async () => {
    const world = await makeWorld({
      registry: (root) =>
        echoServer('guarded', {
          tools: 'write!',
          approval: 'prompt',
          args: ['--call-log', join(root, 'guarded-calls.jsonl')],
        }) +
        echoServer('notes', {
          tools: 'read',
          args: ['--call-log', join(root, 'notes-calls.jsonl')],
        }),
      profile: PROFILE,
      modelUrl: fixture.model.baseUrl,
    });
    const release = join(world.root, 'release-root');
    const codex = await slowRootCodex(world, release);
    const args = world.dirArgs.map((a) => (a === CODEX ? codex : a));
    const exec = startCli(
      ['exec', world.packDir, 'SPAWN', ...args],
      world.env,
      world.workDir,
      240_000,
    );

    let id = '';
    await waitFor(async () => {
      id = (await readdir(join(world.stateDir, 'sessions')).catch(() => []))[0] ?? '';
      return id !== '';
    }, 60_000);
    const dir = join(world.stateDir, 'sessions', id);
    // the worker's first request waits for a person
    await waitFor(
      async () => (await lines(join(dir, 'approvals.jsonl'))).some((r) => r.type === 'requested'),
      120_000,
    );
    exec.kill('SIGTERM');

    const lateCall = (c: Record<string, unknown>): boolean =>
      c.server === 'notes' && c.tool === 'read' && c.reason === 'session-ended';
    await waitFor(async () => {
      const calls = await lines(join(dir, 'calls.jsonl'));
      const approvals = await lines(join(dir, 'approvals.jsonl'));
      return (
        calls.some(lateCall) &&
        approvals.filter((r) => r.type === 'answered' && r.how === 'session-ended').length === 2
      );
    }, 60_000).finally(() => writeFile(release, ''));
    const result = await exec.done;

    expect(result.stderr).not.toMatch(/ProcessError|Unhandled|\n\s+at /);
    expect(result.code, result.stderr).toBe(1);
    const record = JSON.parse(await readFile(join(dir, 'session.json'), 'utf8')) as {
      status: string;
    };
    expect(record.status).toBe('stopped');

    // the approval asked before the stop and the one asked after it: both closed as session-ended
    const approvals = await lines(join(dir, 'approvals.jsonl'));
    const requested = approvals.filter((r) => r.type === 'requested');
    expect(requested.map((r) => [r.process, r.role, r.server, r.tool])).toEqual([
      ['worker-1', 'worker', 'guarded', 'write'],
      ['worker-1', 'worker', 'guarded', 'write'],
    ]);
    const answered = approvals.filter((r) => r.type === 'answered');
    expect(answered.map((r) => [r.decision, r.how])).toEqual([
      ['deny', 'session-ended'],
      ['deny', 'session-ended'],
    ]);
    // every one recorded as a refused call of the worker
    const ended = (await lines(join(dir, 'calls.jsonl'))).filter(
      (c) => c.reason === 'session-ended',
    );
    expect(ended.map((c) => [c.process, c.role, c.server, c.tool, c.outcome])).toEqual(
      expect.arrayContaining([
        ['worker-1', 'worker', 'guarded', 'write', 'denied'],
        ['worker-1', 'worker', 'notes', 'read', 'denied'],
      ]),
    );
    expect(ended).toHaveLength(3);
    const events = await lines(join(dir, 'events.jsonl'));
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'session.ending', text: 'stopped by SIGTERM' }),
        expect.objectContaining({
          type: 'tool_call.refused',
          process: 'worker-1',
          server: 'notes',
          tool: 'read',
          text: 'session-ended',
        }),
      ]),
    );
    // nothing reached a server, nothing is left
    expect(await lines(join(world.root, 'guarded-calls.jsonl'))).toEqual([]);
    expect(await lines(join(world.root, 'notes-calls.jsonl'))).toEqual([]);
    const inDir = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.sock'));
    expect(inDir).toEqual([]);
    expect(existsSync(join(dir, 'approval.key'))).toBe(false);
    await waitFor(async () => (await processesMentioning(world.root)).length === 0, 10_000);
  }, 300_000);
});
