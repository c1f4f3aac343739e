/**
 * A process's tree as Linux shows it, read from `/proc`: its descendants (through every thread's
 * `children`, namespaces included, as seen from ours) and the resident memory of a set of
 * processes. Where `/proc` cannot be read, the tree is empty and the memory 0.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';

import { processChildren } from './process-control.js';

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The children of `pid` (of each of its threads), as the kernel lists them. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${String(pid)}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const task of tasks) {
    for (const word of readText(`/proc/${String(pid)}/task/${task}/children`).split(' ')) {
      const child = Number(word);
      if (word !== '' && Number.isSafeInteger(child)) out.push(child);
    }
  }
  return out;
}

/** Every descendant of `root`, parents before their children (not `root` itself). */
export function descendants(root: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>([root]);
  for (let queue = [root]; queue.length > 0;) {
    const next: number[] = [];
    for (const pid of queue) {
      for (const child of childrenOf(pid)) {
        if (seen.has(child)) continue;
        seen.add(child);
        out.push(child);
        next.push(child);
      }
    }
    queue = next;
  }
  return out;
}

let listsChildren: boolean | undefined;

/** Whether this kernel lists a task's children in /proc (`CONFIG_PROC_CHILDREN`). */
function kernelListsChildren(): boolean {
  listsChildren ??= existsSync(`/proc/${String(process.pid)}/task/${String(process.pid)}/children`);
  return listsChildren;
}

/**
 * The children of `root` and of each process under it, by parent, as `processChildren()` gives
 * them for every process: read from the tree's own children lists, so it costs what the tree
 * holds rather than what the machine runs; every process's where the kernel keeps no such lists.
 */
export function treeChildren(root: number): Map<number, number[]> {
  if (!kernelListsChildren()) return processChildren();
  const children = new Map<number, number[]>();
  const seen = new Set<number>([root]);
  for (let queue = [root]; queue.length > 0;) {
    const next: number[] = [];
    for (const pid of queue) {
      const found = childrenOf(pid).filter((child) => !seen.has(child));
      if (found.length === 0) continue;
      children.set(pid, found);
      for (const child of found) seen.add(child);
      next.push(...found);
    }
    queue = next;
  }
  return children;
}

/** The resident memory (`VmRSS`) of `pid` in kB; 0 for a process that is gone. */
export function residentKb(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readText(`/proc/${String(pid)}/status`));
  return match?.[1] !== undefined ? Number(match[1]) : 0;
}

/** The resident memory of `root` and every descendant together, in MB. */
export function treeResidentMb(root: number): number {
  let kb = residentKb(root);
  for (const pid of descendants(root)) kb += residentKb(pid);
  return kb / 1024;
}
