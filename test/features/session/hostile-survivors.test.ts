/**
 * Nothing of a session outlives it (docs/design.md §9), with real `codex exec`: after `kill -9` of
 * the supervisor while the root's Tool MCP server (its own process group) and a participant run,
 * every process carrying the session's marker ends within seconds and the `auth.json` copies and
 * the socket go; `session stop` makes `exec` exit non-zero; a record whose supervisor pid now
 * belongs to a stranger shows as not running and `session stop` never signals the stranger.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { isAlive } from '../../../src/foundation/process/process-control.js';
import { startWorkingTeam, useLeadWorkerSession } from '../../support/lead-worker-session.js';
import {
  processesMentioning,
  running,
  runInWorld,
  startInWorld,
  waitFor,
  HeldRequests,
} from '../../support/world.js';

const held = new HeldRequests();

async function sessionIds(): Promise<string[]> {
  return (await readdir(join(scripted.world.stateDir, 'sessions')).catch(() => [])).sort();
}

const scripted = useLeadWorkerSession('survivors', held, {
  leadCredential: 'survivor-canary-77aa',
  // homes get auth.json copies, whose removal is checked for
  providerAuth: true,
});

describe('no survivors', () => {
  it('ends every marked process and removes auth copies and the socket after kill -9', async () => {
    const supervisor = await startWorkingTeam(scripted);
    const [id = ''] = await sessionIds();
    const marker = `CODEX_MMO_SESSION=${id}`;
    const dir = join(scripted.world.stateDir, 'sessions', id);
    // Codex, the lead's and the worker's servers, the worker's app-server (mmo_mesh is served
    // in the supervisor)
    const marked = await processesMentioning(marker);
    expect(marked.length).toBeGreaterThanOrEqual(4);
    const servers: number[] = [];
    for (const pid of marked) {
      const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      // the servers themselves, not their containers' unshare and init
      if (cmd.includes('echo-server') && !cmd.includes('codex-mmo-container')) servers.push(pid);
    }
    expect(servers.length).toBe(2);
    expect(existsSync(join(dir, 'homes', 'lead', 'auth.json'))).toBe(true);
    // what of a home is not a rendered file or a rollout: Codex's own state while it runs
    const extra = (home: string): string[] =>
      readdirSync(join(dir, 'homes', home)).filter(
        (n) => !['config.toml', 'agents', 'sessions'].includes(n),
      );
    expect(extra('lead').length).toBeGreaterThan(0);

    supervisor.kill('SIGKILL');
    await supervisor.done;
    await waitFor(async () => (await processesMentioning(marker)).length === 0, 20_000);
    // a server in its own namespaces may hide its environment while its container ends it
    await waitFor(async () => {
      const alive = await Promise.all(servers.map((pid) => running(pid)));
      return alive.every((a) => !a);
    }, 10_000).catch(() => undefined);
    for (const pid of servers) expect(await running(pid)).toBe(false);
    await waitFor(() => !existsSync(join(dir, 'homes', 'lead', 'auth.json')), 5_000);
    expect(existsSync(join(dir, 'homes', 'worker-1', 'auth.json'))).toBe(false);
    // the watchdog clears the rest of Codex's state in the homes too
    await waitFor(() => extra('lead').length === 0 && extra('worker-1').length === 0, 10_000);
    expect(existsSync(join(dir, 'mesh.sock'))).toBe(false);
    const listed = await runInWorld(scripted.world, ['session', 'list', '--json']);
    const sessions = (JSON.parse(listed.stdout) as { sessions: { id: string; status: string }[] })
      .sessions;
    expect(sessions.find((s) => s.id === id)?.status).not.toBe('running');
  }, 150_000);

  it('makes exec of a stopped session exit non-zero, recorded as stopped', async () => {
    const before = (await sessionIds()).length;
    const supervisor = startInWorld(scripted.world, ['exec', scripted.world.packDir, 'just hang']);
    await waitFor(async () => (await sessionIds()).length > before, 30_000);
    const id = (await sessionIds()).at(-1) ?? '';
    await waitFor(
      () => scripted.model.requests.some((r) => r.userTexts.some((t) => t.includes('just hang'))),
      60_000,
    );
    const stopped = await runInWorld(scripted.world, ['session', 'stop', id, '--json']);
    expect(stopped.code, stopped.stderr).toBe(0);
    const ended = await supervisor.done;
    expect(ended.code).not.toBe(0);
    expect(ended.code).not.toBeNull();
    const record = JSON.parse(
      await readFile(join(scripted.world.stateDir, 'sessions', id, 'session.json'), 'utf8'),
    ) as { status: string; exit_code: number };
    expect(record.status).toBe('stopped');
    expect(record.exit_code).toBe(ended.code);
    expect(await processesMentioning(`CODEX_MMO_SESSION=${id}`)).toEqual([]);
  }, 120_000);

  it('never takes a stranger with a reused pid for a session supervisor', async () => {
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = stranger.pid ?? 0;
    const [id = ''] = await sessionIds();
    const file = join(scripted.world.stateDir, 'sessions', id, 'session.json');
    const record = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    // the record of a dead supervisor whose pid the kernel gave to another process
    await writeFile(
      file,
      JSON.stringify({ ...record, status: 'running', pid, pid_start: '1', ended: undefined }),
    );
    const listed = await runInWorld(scripted.world, ['session', 'list', '--json']);
    const sessions = (JSON.parse(listed.stdout) as { sessions: { id: string; status: string }[] })
      .sessions;
    // not running: shown as failed, a supervisor gone without recording how the session ended
    expect(sessions.find((s) => s.id === id)?.status).toBe('failed');
    await runInWorld(scripted.world, ['session', 'stop', id]);
    expect(isAlive(pid)).toBe(true);
    stranger.kill('SIGKILL');
  }, 60_000);
});
