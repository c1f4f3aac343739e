/**
 * `spawnContained`: a command and everything it starts — `setsid`, environment cleared, ignoring
 * SIGTERM — end with the command, when the container is ended, when it is killed, and when its
 * control pipe closes; the command keeps its exit status, its environment (no `PWD` added) and
 * default signal dispositions. Without containment the command runs directly.
 */
import { readdir, readFile } from 'node:fs/promises';

import { describe, expect, it } from 'vitest';

import {
  spawnContained,
  type ContainedProcess,
} from '../../../src/foundation/process/contained-spawn.js';
import { containment, detectContainment } from '../../../src/foundation/process/containment.js';

const how = containment();

async function sleepers(tag: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === `sleep\0${tag}\0`) found.push(Number(entry));
  }
  return found;
}

function start(script: string, env: Record<string, string> = { PATH: '/usr/bin:/bin' }) {
  const started = spawnContained('/bin/sh', ['-c', script], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
    graceSec: 1,
  });
  let out = '';
  started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolve) => {
    started.child.on('close', (code) => {
      resolve({ code, out });
    });
  });
  return { started, done };
}

async function until(condition: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const DETACH = (tag: string): string =>
  `setsid env -i /bin/sh -c 'trap "" TERM; exec sleep ${tag}' </dev/null >/dev/null 2>&1 &`;

describe.runIf(how.available)('spawnContained', () => {
  it('keeps the exit status, the environment and default signal dispositions', async () => {
    expect((await start('exit 7').done).code).toBe(7);
    const run = (command: string, args: string[]): Promise<string> => {
      const started = spawnContained(command, args, {
        env: { PATH: '/usr/bin:/bin', ONLY: 'this' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      return new Promise((resolve) =>
        started.child.on('close', () => {
          resolve(out);
        }),
      );
    };
    expect((await run('/usr/bin/env', [])).split('\n').filter((l) => l !== '')).toEqual([
      'PATH=/usr/bin:/bin',
      'ONLY=this',
    ]);
    const status = await run('/bin/grep', ['-E', '^Sig(Ign|Blk)', '/proc/self/status']);
    expect(status).toMatch(/SigIgn:\s+0+\n/);
    expect(status).toMatch(/SigBlk:\s+0+\n/);
  });

  it('gives the command its environment byte for byte, held by no other process', async () => {
    const canary = "cont-canary-9\nit's $HOME `x` \\ \"q\" 'z'";
    const tag = '3131.9';
    const started = spawnContained(
      '/bin/sh',
      ['-c', `printf '%s' "$SECRET_VALUE"; exec sleep ${tag}`],
      {
        env: { PATH: '/usr/bin:/bin', SECRET_VALUE: canary },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await until(async () => (await sleepers(tag)).length === 1 && out === canary, 10_000);
    // the command has it; the container's unshare and init do not
    const [sleeper = 0] = await sleepers(tag);
    expect(await readFile(`/proc/${sleeper}/environ`, 'utf8')).toContain(canary);
    const holders: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry) || Number(entry) === sleeper) continue;
      const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
      if (environ.includes('cont-canary-9')) holders.push(Number(entry));
    }
    expect(holders).toEqual([]);
    started.kill();
    await until(async () => (await sleepers(tag)).length === 0, 10_000);
  });

  it('ends a setsid child with a cleared environment when the command exits', async () => {
    const tag = '3131.1';
    const { done } = start(`${DETACH(tag)} sleep 0.3`);
    expect((await done).code).toBe(0);
    expect(await sleepers(tag)).toEqual([]);
  });

  const stops: [string, (c: ContainedProcess) => void][] = [
    [
      'signal(SIGTERM)',
      (c) => {
        c.signal('SIGTERM');
      },
    ],
    [
      'end()',
      (c) => {
        c.end();
      },
    ],
    [
      'kill()',
      (c) => {
        c.kill();
      },
    ],
    [
      'the closed control pipe',
      (c) => {
        (c.child.stdio[3] as { destroy(): void }).destroy();
      },
    ],
  ];
  for (const [name, stop] of stops) {
    it(`ends everything in the container on ${name}`, async () => {
      const tag = `3131.${String(stops.findIndex(([n]) => n === name) + 2)}`;
      const { started, done } = start(`${DETACH(tag)} exec sleep 100`);
      await until(async () => (await sleepers(tag)).length === 1, 10_000);
      stop(started);
      await done;
      await until(async () => (await sleepers(tag)).length === 0, 5_000);
    });
  }
});

describe('containment', () => {
  it('is unavailable, with the reason, without unshare', () => {
    const found = detectContainment({
      unshare: ['/nonexistent/unshare'],
      sleep: ['/bin/sleep'],
      shell: '/bin/sh',
      root: false,
    });
    expect(found.available).toBe(false);
    if (!found.available) expect(found.reason).toContain('unshare');
  });

  it('runs the command directly when unavailable', async () => {
    const started = spawnContained('/bin/sh', ['-c', 'echo $$'], {
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'ignore'],
      containment: { available: false, reason: 'test' },
    });
    expect(started.contained).toBe(false);
    let out = '';
    started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((resolve) => started.child.on('close', resolve));
    expect(Number(out.trim())).toBe(started.child.pid);
  });
});
