/**
 * The participant cap of a session, with real `codex exec`: under `--max-participants 1` the
 * lead's second `spawn_participant` (its model calls mmo_mesh) is refused with a mesh tool error
 * naming the limit while the first participant runs; the default is 8; a cap that is not a whole
 * number is a usage error before anything of a session exists.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  startScriptedModel,
  type ModelRequest,
  type ScriptedItem,
  type ScriptedModel,
} from '../../src/codex/scripted-model.js';
import { DEFAULT_MAX_PARTICIPANTS } from '../../src/mesh/session-broker.js';
import {
  echoServer,
  makeWorld,
  processesMentioning,
  profileToml,
  requireBuild,
  runInWorld,
  waitFor,
  type World,
} from './world.js';

let model: ScriptedModel;
let world: World;
const releases: (() => void)[] = [];

function hang(): Promise<ScriptedItem[]> {
  return new Promise((resolve) =>
    releases.push(() => {
      resolve([{ type: 'message', text: 'late' }]);
    }),
  );
}

const spawnWorker: ScriptedItem = {
  type: 'function_call',
  namespace: 'mcp__mmo_mesh',
  name: 'spawn_participant',
  arguments: { role: 'worker', task: 'HANG' },
};

function workerAtWork(): boolean {
  return model.requests.some((r) => r.developerTexts.some((t) => t.includes('ROLE-WORKER')));
}

function script(request: ModelRequest): ScriptedItem[] | Promise<ScriptedItem[]> {
  // the worker stays busy, so it counts towards the cap for the whole turn of the lead
  if (request.developerTexts.some((t) => t.includes('ROLE-WORKER'))) return hang();
  if (request.userTexts.some((t) => t.includes('SPAWN-TWICE'))) {
    if (request.toolOutputs.length === 0) return [spawnWorker];
    // the second spawn once the first participant is at work
    if (request.toolOutputs.length === 1) {
      return waitFor(workerAtWork, 90_000).then(() => [spawnWorker]);
    }
    return [{ type: 'message', text: 'LEAD-DONE' }];
  }
  return [{ type: 'message', text: 'ok' }];
}

beforeAll(async () => {
  requireBuild();
  model = await startScriptedModel(script);
  world = await makeWorld({
    registry: echoServer('worker_srv', { tools: 'note' }),
    profile: profileToml('capped', 'lead', {
      lead: { spawn: ['worker'], control: ['worker'] },
      worker: { grants: { worker_srv: {} } },
    }),
    modelUrl: model.baseUrl,
  });
});

afterAll(async () => {
  for (const release of releases) release();
  await model.close();
});

describe('participant cap', () => {
  it('refuses the second spawn under --max-participants 1 with a tool error naming the limit', async () => {
    const run = await runInWorld(world, [
      'exec',
      world.packDir,
      'SPAWN-TWICE',
      '--max-participants',
      '1',
    ]);
    expect(run.stdout).toContain('LEAD-DONE');
    const final = model.requests.find(
      (r) => r.userTexts.some((t) => t.includes('SPAWN-TWICE')) && r.toolOutputs.length === 2,
    );
    expect(final).toBeDefined();
    const [first, second] = final?.toolOutputs ?? [];
    // the first spawn started worker-1; the second was refused, and no worker-2 ever started
    expect(first?.output).toContain('worker-1');
    expect(second?.output).toContain('already runs 1 participants');
    expect(second?.output).toContain('--max-participants 1');
    expect(second?.output).not.toContain('worker-2');
    const workerStarts = model.requests.filter(
      (r) => r.developerTexts.some((t) => t.includes('ROLE-WORKER')) && !r.hasToolOutput,
    );
    expect(workerStarts.length).toBe(1);
    const [id = ''] = await readdir(join(world.stateDir, 'sessions'));
    const homes = await readdir(join(world.stateDir, 'sessions', id, 'homes')).catch(() => []);
    expect(homes).not.toContain('worker-2');
    expect(await processesMentioning(`CODEX_MMO_SESSION=${id}`)).toEqual([]);
  }, 150_000);

  it('runs at most 8 participants unless told otherwise', async () => {
    expect(DEFAULT_MAX_PARTICIPANTS).toBe(8);
    const help = await runInWorld(world, ['exec', '--help']);
    expect(help.stdout).toContain('--max-participants N');
    expect(help.stdout).toContain('(default 8)');
  }, 30_000);

  it('rejects a cap that is not a whole number as a usage error, before any session', async () => {
    const before = await readdir(join(world.stateDir, 'sessions')).catch(() => []);
    for (const value of ['abc', '-1', '1.5']) {
      const run = await runInWorld(world, [
        'exec',
        world.packDir,
        'never runs',
        `--max-participants=${value}`,
      ]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('--max-participants');
      expect(run.stderr).toContain(value);
      expect(run.stderr).not.toContain('    at ');
    }
    expect(await readdir(join(world.stateDir, 'sessions')).catch(() => [])).toEqual(before);
  }, 60_000);
});
