/**
 * Session lifecycle with real Codex: a registry edited while a session runs changes nothing in
 * that session (its rendered home and snapshot stay as they were) while the next session gets a
 * new snapshot; `session stop` ends the running session, records it as stopped, and leaves none of
 * its processes behind; `session list`/`show` report both sessions.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { isAlive } from '../../../src/foundation/process/process-control.js';
import type { ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  echoServer,
  processesMentioning,
  profileToml,
  runInWorld,
  startInWorld,
  waitFor,
} from '../../support/world.js';

const releases: (() => void)[] = [];

function registry(tools: string): string {
  return `schema_version = 8\n${echoServer('tools', { tools })}`;
}

const PROFILE = profileToml('lifecycle', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'], grants: { tools: {} } },
  worker: {},
});

const scripted = useScriptedSession(
  {
    registry: registry('note').replace('schema_version = 8\n', ''),
    profile: PROFILE,
  },
  (request) => {
    const hang = (): Promise<ScriptedItem[]> =>
      new Promise((resolve) =>
        releases.push(() => {
          resolve([{ type: 'message', text: 'late' }]);
        }),
      );
    if (request.userTexts.some((t) => t.includes('ORPHAN'))) {
      // the lead spawns a worker that never finishes, then never finishes itself
      return request.toolOutputs.length === 0
        ? [
            {
              type: 'function_call',
              namespace: 'mcp__mmo_mesh',
              name: 'spawn_participant',
              arguments: { role: 'worker', task: 'HANG as a worker' },
            },
          ]
        : hang();
    }
    if (request.userTexts.some((t) => t.includes('HANG'))) return hang();
    return [
      { type: 'message', text: `QUICK-DONE ${Object.keys(request.offeredTools.mcp).join(',')}` },
    ];
  },
  {
    release: () => {
      for (const release of releases) release();
    },
  },
);

interface Summary {
  id: string;
  status: string;
  snapshot: string;
}

async function sessions(): Promise<Summary[]> {
  const listed = await runInWorld(scripted.world, ['session', 'list', '--json']);
  return (JSON.parse(listed.stdout) as { sessions: Summary[] }).sessions;
}

describe('sessions over time', () => {
  it('keeps a running session on its snapshot, and stops it on request', async () => {
    const first = startInWorld(scripted.world, ['exec', scripted.world.packDir, 'HANG here']);
    await waitFor(
      () => scripted.model.requests.some((r) => r.userTexts.some((t) => t.includes('HANG'))),
      60_000,
    );
    const [running] = await sessions();
    expect(running?.status).toBe('running');
    const firstDir = join(scripted.world.stateDir, 'sessions', running?.id ?? '');
    const configBefore = await readFile(join(firstDir, 'homes', 'lead', 'config.toml'), 'utf8');
    expect(configBefore).not.toContain('"extra"');

    // the operator edits the registry while the session runs
    await writeFile(
      join(scripted.world.configDir, 'tool-mcp.d', '10-test.toml'),
      registry('note,extra'),
    );
    const second = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'QUICK']);
    expect(second.code, second.stderr).toBe(0);
    const both = await sessions();
    expect(both).toHaveLength(2);
    const [a, b] = both;
    expect(a?.id).toBe(running?.id);
    expect(b?.status).toBe('ended');
    expect(b?.snapshot).not.toBe(a?.snapshot);
    const secondConfig = await readFile(
      join(scripted.world.stateDir, 'sessions', b?.id ?? '', 'homes', 'lead', 'config.toml'),
      'utf8',
    );
    expect(secondConfig).toContain('"extra"');
    // nothing of the running session changed
    expect(await readFile(join(firstDir, 'homes', 'lead', 'config.toml'), 'utf8')).toBe(
      configBefore,
    );
    expect(a?.status).toBe('running');
    const shownSnapshot = await runInWorld(scripted.world, [
      'snapshot',
      'show',
      a?.snapshot ?? '',
      '--json',
    ]);
    expect(shownSnapshot.code, shownSnapshot.stderr).toBe(0);

    // stop it
    const record = JSON.parse(await readFile(join(firstDir, 'session.json'), 'utf8')) as {
      pid: number;
      processes: { pid?: number }[];
    };
    const codexPid = record.processes[0]?.pid;
    expect(codexPid).toBeDefined();
    const stopped = await runInWorld(scripted.world, [
      'session',
      'stop',
      a?.id.slice(0, 22) ?? '',
      '--json',
    ]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({
      session: a?.id,
      status: 'stopped',
      stopped: true,
      forced: false,
    });
    const ended = await first.done;
    // Codex ends gracefully on SIGTERM; its exit code is passed through as it is
    expect(ended.signal).toBeNull();
    expect(ended.stderr).toContain(`session ${a?.id ?? ''} was stopped`);
    expect(isAlive(record.pid)).toBe(false);
    expect(isAlive(codexPid ?? 0)).toBe(false);

    const after = await sessions();
    expect(after.map((s) => s.status)).toEqual(['stopped', 'ended']);
    const again = await runInWorld(scripted.world, ['session', 'stop', a?.id ?? '']);
    expect(again.stdout).toContain('has already been stopped');
    const shown = await runInWorld(scripted.world, ['session', 'show', a?.id ?? '']);
    expect(shown.stdout).toMatch(/status:\s+stopped/);
    expect(shown.stdout).toContain('root');
    // the session's socket is gone with it
    expect(await readdir(firstDir)).not.toContain('mesh.sock');
  }, 90_000);

  it('ends Codex and its participants when the supervising process is killed outright', async () => {
    const supervisor = startInWorld(scripted.world, [
      'exec',
      scripted.world.packDir,
      'ORPHAN check',
    ]);
    // the lead waits for the model after its spawn; the worker waits in its first turn
    await waitFor(
      () =>
        scripted.model.requests.some(
          (r) => r.userTexts.some((t) => t.includes('ORPHAN')) && r.toolOutputs.length > 0,
        ) &&
        scripted.model.requests.some((r) =>
          r.userTexts.some((t) => t.includes('HANG as a worker')),
        ),
      60_000,
    );
    const running = (await sessions()).find((s) => s.status === 'running');
    const dir = join(scripted.world.stateDir, 'sessions', running?.id ?? '');
    const record = JSON.parse(await readFile(join(dir, 'session.json'), 'utf8')) as {
      processes: { id: string; pid?: number }[];
    };
    const pids = record.processes.map((p) => p.pid ?? 0);
    expect(record.processes.map((p) => p.id)).toEqual(['root', 'worker-1']);
    expect(pids.every((pid) => isAlive(pid))).toBe(true);

    supervisor.kill('SIGKILL');
    expect((await supervisor.done).signal).toBe('SIGKILL');
    // the watchdog ends the root Codex, whose model call would otherwise wait forever
    await waitFor(() => pids.every((pid) => !isAlive(pid)), 20_000);
    await waitFor(async () => (await processesMentioning(dir)).length === 0, 10_000);

    const shown = await runInWorld(scripted.world, [
      'session',
      'show',
      running?.id ?? '',
      '--json',
    ]);
    const after = JSON.parse(shown.stdout) as { status: string; error?: string };
    expect(after.status).toBe('failed');
    expect(after.error).toContain('is gone without recording how the session ended');
    expect(after.error).toContain("none of the session's processes is running");
  }, 90_000);

  it('records a session interrupted with Ctrl-C as stopped and passes the exit code through', async () => {
    const before = scripted.model.requests.length;
    const supervisor = startInWorld(scripted.world, [
      'exec',
      scripted.world.packDir,
      'HANG until interrupted',
    ]);
    await waitFor(
      () =>
        scripted.model.requests
          .slice(before)
          .some((r) => r.userTexts.some((t) => t.includes('HANG until interrupted'))),
      60_000,
    );
    supervisor.kill('SIGINT');
    const ended = await supervisor.done;
    // Codex interrupts its turn and exits 1; that code is the session's
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(/codex-mmo: session \S+ was stopped/);
    const last = (await sessions()).at(-1);
    expect(last).toMatchObject({ status: 'stopped' });
  }, 90_000);
});
