/**
 * Whether a pid is alive: this process and a sleeping child are; an exited and reaped one and
 * invalid pids are not; nor is a zombie — a child that exited and that its parent never reaps.
 * The descendants of a process: its children and theirs, also one in a session of its own.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

import { describe, expect, it } from 'vitest';

import {
  descendantsOf,
  isAlive,
  processChildren,
} from '../../../src/foundation/process/process-control.js';

/** The state letter /proc shows for `pid` ('' when it is gone). */
async function stateOf(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

describe('isAlive', () => {
  it('is true for running processes and false for invalid or reaped pids', async () => {
    expect(isAlive(process.pid)).toBe(true);
    const child = spawn('sleep', ['5'], { stdio: 'ignore' });
    const pid = child.pid ?? 0;
    expect(isAlive(pid)).toBe(true);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(pid)).toBe(false);
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(isAlive(bad)).toBe(false);
  });

  it('is false for a zombie', async () => {
    // `sleep 0.1` runs in the background of a shell that then becomes `sleep 5`, which never
    // reaps it: once it exits it stays a zombie until its parent ends
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 5'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const pid = await new Promise<number>((resolve) => {
        parent.stdout.once('data', (chunk: Buffer) => {
          resolve(Number(chunk.toString().trim()));
        });
      });
      for (let i = 0; i < 100 && (await stateOf(pid)) !== 'Z'; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await stateOf(pid)).toBe('Z');
      expect(isAlive(pid)).toBe(false);
      expect(isAlive(parent.pid ?? 0)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('descendantsOf', () => {
  it('finds children and grandchildren, also one that left the session, children first', async () => {
    // the shell's child `sh -c` starts `setsid sleep` (a session of its own), then waits
    const parent = spawn('sh', ['-c', "sh -c 'setsid sleep 5.31 & echo $!; wait' & wait"], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const grandchild = await new Promise<number>((resolve) => {
        parent.stdout.once('data', (chunk: Buffer) => {
          resolve(Number(chunk.toString().trim()));
        });
      });
      const pid = parent.pid ?? 0;
      const [child, ...rest] = descendantsOf(pid);
      expect(processChildren().get(pid)).toEqual([child]);
      expect(rest).toEqual([grandchild]);
      expect(descendantsOf(grandchild)).toEqual([]);
      expect(descendantsOf(process.pid)).toContain(grandchild);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
