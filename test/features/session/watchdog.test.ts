/**
 * The session watchdog as real processes: a supervisor that is killed outright has its watched
 * process and participant process groups ended by the watchdog (SIGTERM, then SIGKILL for one that
 * ignores SIGTERM), while a supervisor that releases the watchdog leaves everything alone.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';

import { isAlive } from '../../../src/foundation/process/process-control.js';
import { WATCHDOG_ENV, startWatchdog } from '../../../src/features/session/watchdog.js';
import { REPO, requireBuild, waitFor } from '../../support/world.js';

const WATCHDOG = join(REPO, 'dist/features/session/watchdog.js');

/**
 * Runs a supervisor that starts a root process (`trap '' TERM` makes it ignore SIGTERM when
 * `stubborn`), a participant process group and a watchdog over both; it prints the pids, then
 * either kills itself with SIGKILL or releases the watchdog and exits.
 */
async function supervise(
  ending: 'killed' | 'released',
  stubborn: boolean,
): Promise<{ root: number; group: number; watchdog: number }> {
  const script = `
    import { spawn } from 'node:child_process';
    const { startWatchdog } = await import(${JSON.stringify(WATCHDOG)});
    const root = spawn('/bin/sh', ['-c', ${JSON.stringify(stubborn ? "trap '' TERM; while :; do sleep 1; done" : 'sleep 60')}], { stdio: 'ignore' });
    const group = spawn('sleep', ['60'], { stdio: 'ignore', detached: true });
    const watchdog = startWatchdog(root.pid, 1);
    watchdog.setGroups([group.pid]);
    console.log(JSON.stringify({ root: root.pid, group: group.pid, watchdog: watchdog.pid }));
    setTimeout(() => {
      if (${JSON.stringify(ending)} === 'killed') process.kill(process.pid, 'SIGKILL');
      watchdog.release();
      root.unref();
      group.unref();
    }, 300);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => child.once('close', resolve));
  return JSON.parse(out) as { root: number; group: number; watchdog: number };
}

describe('session watchdog', () => {
  it('ends the root process and participant groups when the supervisor is killed', async () => {
    requireBuild();
    const { root, group, watchdog } = await supervise('killed', false);
    await waitFor(() => !isAlive(root) && !isAlive(group) && !isAlive(watchdog), 10_000);
  }, 20_000);

  it('kills a root process that ignores SIGTERM after the grace period', async () => {
    requireBuild();
    const { root, watchdog } = await supervise('killed', true);
    await new Promise((r) => setTimeout(r, 400));
    expect(isAlive(root)).toBe(true);
    await waitFor(() => !isAlive(root) && !isAlive(watchdog), 10_000);
  }, 20_000);

  it('leaves everything alone once released', async () => {
    requireBuild();
    const { root, group, watchdog } = await supervise('released', false);
    await waitFor(() => !isAlive(watchdog), 5_000);
    expect(isAlive(root)).toBe(true);
    expect(isAlive(group)).toBe(true);
    process.kill(root, 'SIGKILL');
    process.kill(-group, 'SIGKILL');
  }, 20_000);

  it('runs with a built environment, not the environment of the supervisor', async () => {
    const canary = 'wd-canary-7f3a9c1e';
    vi.stubEnv('MMO_WATCHDOG_CANARY', canary);
    const root = spawn('sleep', ['60'], { stdio: 'ignore' });
    const watchdog = startWatchdog(root.pid ?? 0, 1);
    try {
      expect(watchdog.pid).toBeDefined();
      await waitFor(() => isAlive(watchdog.pid ?? 0), 5_000);
      const environ = await readFile(`/proc/${String(watchdog.pid)}/environ`, 'utf8');
      expect(environ).not.toContain(canary);
      expect(environ.split('\0').filter((e) => e !== '')).toEqual(
        Object.entries(WATCHDOG_ENV).map(([k, v]) => `${k}=${v}`),
      );
    } finally {
      vi.unstubAllEnvs();
      watchdog.release();
      root.kill('SIGKILL');
    }
  }, 20_000);
});
