/**
 * `session resume` in real sessions: an ended `exec` session continues in a new session from its
 * own snapshot (the pack changed since, the grant it dropped is still there), the root's thread
 * with its history, the earlier participant listed as previous and continued through `mmo_mesh`
 * with its own history; a stopped session, one whose supervisor was killed with SIGKILL and a
 * failed one continue too. Refused, saying why: a running session, a drifted pin, a removed
 * snapshot, an exec session without a prompt.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  HeldRequests,
  echoServer,
  profileToml,
  runInWorld,
  running,
  startInWorld,
  waitFor,
  type World,
} from '../../support/world.js';

const mesh = (name: string, args: Record<string, unknown> = {}): ScriptedItem => ({
  type: 'function_call',
  namespace: 'mcp__mmo_mesh',
  name,
  arguments: args,
});

/** The last user message and the tool outputs after it (a resumed thread carries earlier ones). */
function turnOf(request: ModelRequest): { prompt: string; outputs: string[] } {
  const input = (request.body.input ?? []) as { type?: string; role?: string; output?: unknown }[];
  let last = -1;
  input.forEach((item, i) => {
    if (item.type === 'message' && item.role === 'user') last = i;
  });
  const outputs = input
    .slice(last + 1)
    .filter((item) => item.type === 'function_call_output')
    .map((item) => (typeof item.output === 'string' ? item.output : JSON.stringify(item.output)));
  return { prompt: request.userTexts.at(-1) ?? '', outputs };
}

const held = new HeldRequests();

function script(request: ModelRequest): ScriptedItem[] | Promise<ScriptedItem[]> {
  const seen = request.userTexts.join(' | ');
  if (request.developerTexts.some((t) => t.includes('ROLE-WORKER'))) {
    return [{ type: 'message', text: `WORKER-SAW ${seen}` }];
  }
  const { prompt, outputs } = turnOf(request);
  const steps: Record<string, ScriptedItem[]> = {
    FIRST: [
      { type: 'function_call', namespace: 'mcp__notes', name: 'note', arguments: { text: 'N1' } },
      mesh('spawn_participant', { role: 'worker', task: 'WORK-A' }),
      mesh('wait_participant', { participant: 'worker-1' }),
    ],
    SECOND: [
      mesh('list_participants'),
      mesh('spawn_participant', { role: 'worker', task: 'WORK-B', resume: 'worker-1' }),
      mesh('wait_participant', { participant: 'worker-1' }),
      mesh('spawn_participant', { role: 'worker', task: 'WORK-C', resume: 'worker-1' }),
    ],
  };
  if (prompt.includes('HOLD')) return held.hold();
  if (prompt.includes('FAIL')) throw new Error('the scripted model fails this turn');
  const key = Object.keys(steps).find((k) => prompt.includes(k));
  const next = key === undefined ? undefined : steps[key]?.[outputs.length];
  if (next !== undefined) return [next];
  const tools = Object.keys(request.offeredTools.mcp).join(',');
  return [
    { type: 'message', text: `LEAD-SAW ${seen} || ${outputs.join(' || ')} || TOOLS ${tools}` },
  ];
}

const PROFILE = profileToml('resumable', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'], grants: { notes: {} } },
  worker: {},
});

const scripted = useScriptedSession(
  { registry: echoServer('notes', { tools: 'note' }), profile: PROFILE },
  script,
  {
    release: () => {
      held.releaseAll();
    },
    prepare: async (world) => {
      const pinned = await runInWorld(world, ['tool-mcp', 'pin', 'notes']);
      expect(pinned.code, pinned.stderr).toBe(0);
    },
  },
);

interface Record_ {
  id: string;
  pid: number;
  status: string;
  snapshot: string;
  resumed_from?: string;
  processes: { id: string; kind: string; pid?: number; resumed_from?: string }[];
}

async function sessionIds(world: World): Promise<string[]> {
  const list = await runInWorld(world, ['session', 'list', '--json']);
  return (JSON.parse(list.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
}

async function record(world: World, id: string): Promise<Record_> {
  const shown = await runInWorld(world, ['session', 'show', id, '--json']);
  expect(shown.code, shown.stderr).toBe(0);
  return JSON.parse(shown.stdout) as Record_;
}

/** Runs `exec PACK PROMPT` and returns the new session's id. */
async function execSession(
  world: World,
  prompt: string,
): Promise<{ id: string; code: number | null; stderr: string }> {
  const before = new Set(await sessionIds(world));
  const result = await runInWorld(world, ['exec', world.packDir, prompt]);
  const id = (await sessionIds(world)).find((s) => !before.has(s));
  if (id === undefined) throw new Error(`no session started: ${result.stderr}`);
  return { id, code: result.code, stderr: result.stderr };
}

/** Starts `exec PACK HOLD` and waits until its root's model request is held. */
async function heldSession(
  world: World,
): Promise<{ id: string; done: Promise<unknown>; pid: number }> {
  const before = new Set(await sessionIds(world));
  const requests = scripted.model.requests.length;
  const running = startInWorld(world, ['exec', world.packDir, 'HOLD']);
  await waitFor(
    () =>
      scripted.model.requests
        .slice(requests)
        .some((r) => r.userTexts.some((t) => t.includes('HOLD'))),
    60_000,
  );
  const id = (await sessionIds(world)).find((s) => !before.has(s));
  if (id === undefined || running.pid === undefined) throw new Error('no held session');
  return { id, done: running.done, pid: running.pid };
}

async function resume(
  world: World,
  id: string,
  prompt: string,
): Promise<{ code: number | null; stdout: string; stderr: string; id: string }> {
  const before = new Set(await sessionIds(world));
  const result = await runInWorld(world, ['session', 'resume', id, prompt]);
  const fresh = (await sessionIds(world)).find((s) => !before.has(s)) ?? '';
  return { ...result, id: fresh };
}

describe('session resume', () => {
  it('continues an ended session from its own snapshot: the root and a participant keep their history', async () => {
    const w = scripted.world;
    const first = await execSession(w, 'FIRST');
    expect(scripted.model.errors).toEqual([]);
    expect(first.code, first.stderr).toBe(0);
    const earlier = await record(w, first.id);
    expect(earlier.status).toBe('ended');

    // the pack changes after the session: the resumed one still runs the session's own snapshot
    const packFile = join(w.packDir, 'profile.toml');
    const pack = await readFile(packFile, 'utf8');
    await writeFile(packFile, pack.replace(/\n\[agents\.lead\.tool_mcp_servers\.notes\]\n/, '\n'));
    try {
      const resumed = await resume(w, first.id, 'SECOND');
      expect(scripted.model.errors).toEqual([]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain(`continuing session ${first.id}`);
      const [lead = '', list = '', spawned = '', waited = '', again = '', tools = ''] =
        resumed.stdout.split(' || ');
      // the root's thread continues: both prompts are in its history
      expect(lead).toContain('FIRST');
      expect(lead).toContain('SECOND');
      // the earlier participant is listed as previous, and continued with its own history
      expect(list).toMatch(/previous.*worker-1.*worker.*root/s);
      expect(list).toContain(first.id);
      expect(spawned).toContain(`continuing ${first.id}/worker-1`);
      expect(waited).toContain('WORKER-SAW');
      expect(waited).toContain('WORK-A');
      expect(waited).toContain('WORK-B');
      // a participant is continued once
      expect(again).toContain('continued already, by worker-1');
      // the grant the pack dropped since is still the session's
      expect(tools).toContain('notes');

      const now = await record(w, resumed.id);
      expect(now.resumed_from).toBe(first.id);
      expect(now.snapshot).toBe(earlier.snapshot);
      expect(now.processes.find((p) => p.kind === 'root')?.resumed_from).toBe(`${first.id}/root`);
      expect(now.processes.find((p) => p.id === 'worker-1')?.resumed_from).toBe(
        `${first.id}/worker-1`,
      );
      const shown = await runInWorld(w, ['session', 'show', resumed.id]);
      expect(shown.stdout).toMatch(new RegExp(`resumed from:\\s+${first.id}`));

      // a resumed session resumes again, from the same snapshot
      const third = await resume(w, resumed.id, 'THIRD');
      expect(third.code, third.stderr).toBe(0);
      expect(third.stdout).toMatch(/FIRST.*SECOND.*THIRD/s);
    } finally {
      await writeFile(packFile, pack);
    }
  }, 300_000);

  it('continues a stopped session, refusing it while it still runs', async () => {
    const w = scripted.world;
    const hold = await heldSession(w);
    const early = await runInWorld(w, ['session', 'resume', hold.id, 'AFTER']);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('error[session-still-running]');
    const stopped = await runInWorld(w, ['session', 'stop', hold.id]);
    expect(stopped.code, stopped.stderr).toBe(0);
    await hold.done;
    expect((await record(w, hold.id)).status).toBe('stopped');
    const resumed = await resume(w, hold.id, 'AFTER');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/LEAD-SAW .*HOLD.*AFTER/s);
  }, 300_000);

  it('continues a session whose supervisor was killed with SIGKILL', async () => {
    const w = scripted.world;
    const hold = await heldSession(w);
    process.kill(hold.pid, 'SIGKILL');
    await hold.done;
    // the watchdog ends the root's Codex; until then the session counts as running
    const root = (await record(w, hold.id)).processes.find((p) => p.kind === 'root')?.pid;
    await waitFor(async () => root === undefined || !(await running(root)), 60_000);
    expect((await record(w, hold.id)).status).toBe('failed');
    const resumed = await resume(w, hold.id, 'AFTER');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/LEAD-SAW .*HOLD.*AFTER/s);
  }, 300_000);

  it('continues a failed session and one whose registry entry changed; refuses a drifted pin, a removed snapshot and a missing prompt', async () => {
    const w = scripted.world;
    const failed = await execSession(w, 'FAIL');
    expect(failed.code).toBe(1);
    expect((await record(w, failed.id)).status).toBe('failed');
    const resumed = await resume(w, failed.id, 'AFTER');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/LEAD-SAW .*FAIL.*AFTER/s);

    // an exec session continues with a prompt
    const bare = await runInWorld(w, ['session', 'resume', failed.id]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(`codex-mmo session resume ${failed.id} PROMPT`);
    // a pack and --resume together: the session's own profile is the one it continues with
    const both = await runInWorld(w, ['exec', w.packDir, '--resume', failed.id, 'AFTER']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--resume continues a session with its own profile');

    // the registry changed alone: the session's own definition still runs
    const fragment = join(w.configDir, 'tool-mcp.d', '10-test.toml');
    const registry = await readFile(fragment, 'utf8');
    await writeFile(fragment, registry.replace('"--tools"', '"--drifted","--tools"'));
    const pin = async (): Promise<void> => {
      const pinned = await runInWorld(w, ['tool-mcp', 'pin', 'notes']);
      expect(pinned.code, pinned.stderr).toBe(0);
    };
    try {
      // options before and after the ID are passed on; the ID is the first positional
      const changed = await runInWorld(w, [
        'session',
        'resume',
        '--approval-timeout',
        '300',
        failed.id,
        'AFTER',
        '--max-participants',
        '3',
      ]);
      expect(changed.code, changed.stderr).toBe(0);
      expect(changed.stderr).toContain(`continuing session ${failed.id}`);
      // pinned again as it is now, the session's definition drifted from its pin: refused
      await pin();
      const drifted = await runInWorld(w, ['session', 'resume', failed.id, 'AFTER']);
      expect(drifted.code).toBe(1);
      expect(drifted.stderr).toContain('definition-drift');
      expect(drifted.stderr).toContain(`session ${failed.id}: not resumed`);
    } finally {
      await writeFile(fragment, registry);
      await pin();
    }

    // its snapshot removed: refused, naming it
    const { snapshot } = await record(w, failed.id);
    const removed = await runInWorld(w, ['snapshot', 'rm', snapshot]);
    expect(removed.code, removed.stderr).toBe(0);
    const gone = await runInWorld(w, ['session', 'resume', failed.id, 'AFTER']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('error[resume-snapshot-gone]');
    expect(gone.stderr).toContain(snapshot.slice(0, 19));
    expect(gone.stderr).not.toMatch(/\n\s+at /);
  }, 300_000);
});
