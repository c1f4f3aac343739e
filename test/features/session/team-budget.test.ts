/**
 * The team budget in real `exec` sessions: under `--max-server-processes 1` and
 * `--max-codex-processes 2` the lead's first leased server starts and its second is refused, its
 * first participant starts and its second is refused, each refusal reaching the model with the
 * ceiling and the option named, recorded as a `budget.refused` event and counted in
 * `session show` next to the use of each ceiling; under `--max-memory 1` a spawn is refused by
 * memory. A ceiling that is not a whole number is a usage error before any session exists. A
 * pack's `[budget]` narrows the operator's ceilings (its refusals name it) and never raises one
 * (a warning says the operator's applies).
 */
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, profileToml, runInWorld, type World } from '../../support/world.js';

const call = (server: string): ScriptedItem => ({
  type: 'function_call',
  namespace: `mcp__${server}`,
  name: 'note',
  arguments: { text: `BUDGET-${server}` },
});

const spawnWorker: ScriptedItem = {
  type: 'function_call',
  namespace: 'mcp__mmo_mesh',
  name: 'spawn_participant',
  arguments: { role: 'worker', task: 'WORK' },
};

function script(request: ModelRequest): ScriptedItem[] {
  if (request.developerTexts.some((t) => t.includes('ROLE-WORKER'))) {
    return [{ type: 'message', text: 'WORKER-DONE' }];
  }
  const outputs = request.toolOutputs.map((o) => o.output);
  const done = (): ScriptedItem[] => [
    { type: 'message', text: `LEAD-DONE ${outputs.join(' || ')}` },
  ];
  if (request.userTexts.some((t) => t.includes('MEMORY'))) {
    return outputs.length === 0 ? [spawnWorker] : done();
  }
  const steps = [call('one'), call('two'), spawnWorker, spawnWorker];
  const next = steps[outputs.length];
  return next !== undefined ? [next] : done();
}

const scripted = useScriptedSession(
  {
    registry: echoServer('one', { tools: 'note' }) + echoServer('two', { tools: 'note' }),
    profile: profileToml('budgeted', 'lead', {
      lead: {
        spawn: ['worker'],
        control: ['worker'],
        grants: {
          one: { required: false, tools: ['note'] },
          two: { required: false, tools: ['note'] },
        },
      },
      worker: {},
    }),
  },
  script,
  {
    prepare: async (world) => {
      for (const id of ['one', 'two']) {
        const pinned = await runInWorld(world, ['tool-mcp', 'pin', id]);
        expect(pinned.code, pinned.stderr).toBe(0);
      }
    },
  },
);

/** The world's sessions, oldest first. */
async function listSessions(world: World): Promise<{ id: string; dir: string }[]> {
  const root = join(world.stateDir, 'sessions');
  const ids = await readdir(root).catch(() => []);
  const found = await Promise.all(
    ids.map(async (id) => {
      const dir = join(root, id);
      const record = JSON.parse(await readFile(join(dir, 'session.json'), 'utf8')) as {
        started: string;
      };
      return { id, dir, started: record.started };
    }),
  );
  return found.sort((a, b) => a.started.localeCompare(b.started));
}

async function newestSession(world: World): Promise<{ id: string; dir: string }> {
  const newest = (await listSessions(world)).at(-1);
  if (newest === undefined) throw new Error('no session');
  return newest;
}

describe('a team budget', () => {
  it('refuses a server start and a spawn beyond their ceilings, tells the model and records it', async () => {
    const w = scripted.world;
    const result = await runInWorld(w, [
      'exec',
      w.packDir,
      'BUDGET',
      '--max-server-processes',
      '1',
      '--max-codex-processes',
      '2',
    ]);
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    const outputs = result.stdout.split(' || ');
    // the first leased server starts and answers; the second is refused by its ceiling
    expect(outputs[0]).toContain('BUDGET-one');
    expect(outputs[1]).toContain('--max-server-processes 1');
    expect(outputs[1]).toContain('[budget-exceeded]');
    expect(outputs[1]).not.toContain('BUDGET-two');
    // the first participant starts; the second would be a third Codex process
    expect(outputs[2]).toContain('worker-1');
    expect(outputs[3]).toContain('--max-codex-processes 2');
    expect(outputs[3]).toContain('[budget-exceeded]');

    const { id, dir } = await newestSession(w);
    const events = (await readFile(join(dir, 'events.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l.includes('"budget.refused"'))
      .map((l) => JSON.parse(l) as { kind: string; role: string; text: string });
    expect(events.map((e) => e.kind).sort()).toEqual(['codex_processes', 'server_processes']);
    for (const e of events) expect(e.role).toBe('lead');

    const shown = await runInWorld(w, ['session', 'show', id]);
    expect(shown.code, shown.stderr).toBe(0);
    // an ended session shows the most it used of each
    expect(shown.stdout).toMatch(/budget: server processes:\s+peak 1 of 1/);
    expect(shown.stdout).toMatch(/budget: Codex processes:\s+peak 2 of 2/);
    expect(shown.stdout).toMatch(/budget: participants:\s+peak 1 of 8/);
    expect(shown.stdout).toMatch(/budget: refused:\s+2/);
    const json = await runInWorld(w, ['session', 'show', id, '--json']);
    const record = JSON.parse(json.stdout) as { budget: { refused: number; ceilings: object } };
    expect(record.budget.refused).toBe(2);
    expect(record.budget.ceilings).toEqual({
      participants: 8,
      codex_processes: 2,
      server_processes: 1,
    });
  });

  it('refuses a spawn its memory ceiling has no room for', async () => {
    const w = scripted.world;
    const result = await runInWorld(w, ['exec', w.packDir, 'MEMORY', '--max-memory', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('--max-memory 1');
    expect(result.stdout).toContain('[budget-exceeded]');
    const { id } = await newestSession(w);
    const shown = await runInWorld(w, ['session', 'show', id]);
    expect(shown.stdout).toMatch(/budget: memory:\s+peak \d+ MB of 1 MB/);
  });

  it('refuses a ceiling that is not a whole number before any session exists', async () => {
    const w = scripted.world;
    const before = (await listSessions(w)).length;
    const result = await runInWorld(w, ['exec', w.packDir, 'X', '--max-memory', 'lots']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("option '--max-memory' needs a whole number of megabytes");
    expect((await listSessions(w)).length).toBe(before);
  });

  it("keeps to the pack's [budget] within the operator's ceilings", async () => {
    const w = scripted.world;
    const pack = join(w.root, 'budgeted-pack');
    await cp(w.packDir, pack, { recursive: true });
    const file = join(pack, 'profile.toml');
    await writeFile(
      file,
      `${await readFile(file, 'utf8')}\n[budget]\nparticipants = 1\nserver_processes = 5\n`,
    );
    const result = await runInWorld(w, ['exec', pack, 'BUDGET', '--max-server-processes', '1']);
    expect(result.code, result.stderr).toBe(0);
    // the pack asks for more server processes than the operator allows: the operator's 1 applies
    expect(result.stderr).toContain('warning[pack-budget-above-limit]');
    expect(result.stderr).toContain("the pack's [budget] server_processes = 5");
    const outputs = result.stdout.split(' || ');
    expect(outputs[1]).toContain('--max-server-processes 1');
    // the pack's participants ceiling is lower than the operator's default 8: it applies
    expect(outputs[2]).toContain('worker-1');
    expect(outputs[3]).toContain("its limit (the pack's [budget] participants = 1)");
    const { id } = await newestSession(w);
    const shown = await runInWorld(w, ['session', 'show', id]);
    expect(shown.stdout).toMatch(/budget: participants:\s+peak \d of 1/);
  });
});
