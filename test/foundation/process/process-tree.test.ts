/**
 * A process's tree read from `/proc`: a shell's child and grandchild are its descendants, parents
 * first; a live process has resident memory, a gone one none; a tree's memory counts every
 * process in it.
 */
import { spawn } from 'node:child_process';

import { afterEach, describe, expect, it } from 'vitest';

import { processChildren } from '../../../src/foundation/process/process-control.js';
import {
  descendants,
  residentKb,
  treeChildren,
  treeResidentMb,
} from '../../../src/foundation/process/process-tree.js';

const started: number[] = [];

async function waitFor(condition: () => boolean, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !condition();) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

describe('process tree', () => {
  it('lists a shell’s child and grandchild, and counts their memory', async () => {
    const shell = spawn('/bin/sh', ['-c', '/bin/sh -c "sleep 30 & wait" & wait'], {
      detached: true,
      stdio: 'ignore',
    });
    const pid = shell.pid ?? 0;
    started.push(pid);
    await waitFor(() => descendants(pid).length >= 2, 5000);
    const tree = descendants(pid);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    expect(descendants(process.pid)).toEqual(expect.arrayContaining([pid, ...tree]));
    const own = [pid, ...tree].reduce((kb, p) => kb + residentKb(p), 0);
    expect(own).toBeGreaterThan(0);
    expect(treeResidentMb(pid)).toBeCloseTo(own / 1024, 0);
    expect(treeResidentMb(process.pid)).toBeGreaterThan(residentKb(process.pid) / 1024);
  });

  it('reads a tree’s children from the tree alone, as the whole of /proc gives them', async () => {
    const shell = spawn('/bin/sh', ['-c', '/bin/sh -c "sleep 30 & sleep 30 & wait" & wait'], {
      detached: true,
      stdio: 'ignore',
    });
    const pid = shell.pid ?? 0;
    started.push(pid);
    await waitFor(() => descendants(pid).length >= 3, 5000);
    const tree = treeChildren(pid);
    const all = processChildren();
    const sorted = (m: ReadonlyMap<number, readonly number[]>, pids: number[]) =>
      pids.filter((p) => m.has(p)).map((p) => [p, [...(m.get(p) ?? [])].sort()]);
    const members = [pid, ...descendants(pid)];
    expect(sorted(tree, members)).toEqual(sorted(all, members));
    expect([...tree.keys()].every((p) => members.includes(p))).toBe(true);
    const inner = tree.get(tree.get(pid)?.[0] ?? 0) ?? [];
    expect(inner).toHaveLength(2);
  });

  it('finds nothing for a process that is gone', () => {
    expect(treeChildren(2 ** 22 + 7)).toEqual(new Map());
    expect(descendants(2 ** 22 + 7)).toEqual([]);
    expect(residentKb(2 ** 22 + 7)).toBe(0);
  });
});
