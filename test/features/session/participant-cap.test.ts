/**
 * The participant cap of a session, with real `codex exec`: under `--max-participants 2` the
 * lead's third `spawn_participant` (its model calls mmo_mesh) is refused with a mesh tool error
 * naming the limit and the option while two participants run, and once it stops one, the next
 * spawn starts; exec's help states the default (resolving it is tested in
 * test/runtime/mesh/participant-cap.test.ts); a cap that is not a whole number is a usage error before
 * anything of a session exists.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  echoServer,
  processesMentioning,
  profileToml,
  runCliProcess,
  runInWorld,
  waitFor,
} from '../../support/world.js';

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

function workersAtWork(): number {
  return scripted.model.requests.filter(
    (r) => r.developerTexts.some((t) => t.includes('ROLE-WORKER')) && !r.hasToolOutput,
  ).length;
}

const stopWorker1: ScriptedItem = {
  type: 'function_call',
  namespace: 'mcp__mmo_mesh',
  name: 'stop_participant',
  arguments: { participant: 'worker-1' },
};

function script(request: ModelRequest): ScriptedItem[] | Promise<ScriptedItem[]> {
  // the workers stay busy, so each counts towards the cap for the whole turn of the lead
  if (request.developerTexts.some((t) => t.includes('ROLE-WORKER'))) return hang();
  if (request.userTexts.some((t) => t.includes('SPAWN-FOUR'))) {
    const done = request.toolOutputs.length;
    // each spawn once the participants before it are at work
    if (done <= 2) return waitFor(() => workersAtWork() >= done, 90_000).then(() => [spawnWorker]);
    if (done === 3) return [stopWorker1];
    if (done === 4) return [spawnWorker];
    // done once worker-3 is at work too
    return waitFor(() => workersAtWork() >= 3, 90_000).then(() => [
      { type: 'message', text: 'LEAD-DONE' },
    ]);
  }
  return [{ type: 'message', text: 'ok' }];
}

const scripted = useScriptedSession(
  {
    registry: echoServer('worker_srv', { tools: 'note' }),
    profile: profileToml('capped', 'lead', {
      lead: { spawn: ['worker'], control: ['worker'] },
      worker: { grants: { worker_srv: {} } },
    }),
  },
  script,
  {
    release: () => {
      for (const release of releases) release();
    },
  },
);

describe('participant cap', () => {
  it('refuses the third spawn under --max-participants 2, and spawns again once one stops', async () => {
    // four spawns, each a real app-server: more time than runInWorld's default
    const run = await runCliProcess(
      [
        'exec',
        scripted.world.packDir,
        'SPAWN-FOUR',
        '--max-participants',
        '2',
        ...scripted.world.dirArgs,
      ],
      scripted.world.env,
      scripted.world.workDir,
      200_000,
    );
    expect(run.stdout, run.stderr).toContain('LEAD-DONE');
    const final = scripted.model.requests.find(
      (r) => r.userTexts.some((t) => t.includes('SPAWN-FOUR')) && r.toolOutputs.length === 5,
    );
    expect(final).toBeDefined();
    const [first, second, third, stop, fourth] = final?.toolOutputs ?? [];
    expect(first?.output).toContain('worker-1');
    expect(second?.output).toContain('worker-2');
    // the third was refused by the cap, naming the rule and the option
    expect(third?.output).toContain('already runs 2 participants');
    expect(third?.output).toContain('limit');
    expect(third?.output).toContain('--max-participants 2');
    expect(third?.output).not.toContain('worker-3');
    expect(stop?.output).toContain('worker-1');
    // stopping worker-1 freed its slot: the next spawn started worker-3
    expect(fourth?.output).toContain('worker-3');
    expect(fourth?.output).not.toContain('already runs');
    expect(workersAtWork()).toBe(3);
    const [id = ''] = await readdir(join(scripted.world.stateDir, 'sessions'));
    const homes = await readdir(join(scripted.world.stateDir, 'sessions', id, 'homes')).catch(
      () => [],
    );
    expect(homes.filter((h) => h.startsWith('worker-')).sort()).toEqual([
      'worker-1',
      'worker-2',
      'worker-3',
    ]);
    expect(await processesMentioning(`CODEX_MMO_SESSION=${id}`)).toEqual([]);
  }, 240_000);

  it('states the default of 8 in its help', async () => {
    const help = await runInWorld(scripted.world, ['exec', '--help']);
    expect(help.stdout).toContain('--max-participants N');
    expect(help.stdout).toContain('(default 8)');
  }, 30_000);

  it('rejects a cap that is not a whole number as a usage error, before any session', async () => {
    const before = await readdir(join(scripted.world.stateDir, 'sessions')).catch(() => []);
    for (const value of ['abc', '-1', '1.5']) {
      const run = await runInWorld(scripted.world, [
        'exec',
        scripted.world.packDir,
        'never runs',
        `--max-participants=${value}`,
      ]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('--max-participants');
      expect(run.stderr).toContain(value);
      expect(run.stderr).not.toContain('    at ');
    }
    expect(await readdir(join(scripted.world.stateDir, 'sessions')).catch(() => [])).toEqual(
      before,
    );
  }, 60_000);
});
