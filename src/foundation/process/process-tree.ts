/**
 * A process's tree as Linux shows it, read from `/proc`: its descendants (through every thread's
 * `children`, namespaces included, as seen from ours) and the resident memory of a set of
 * processes. Where `/proc` cannot be read, the tree is empty and the memory 0.
 */
import { readFileSync, readdirSync } from 'node:fs';

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Every descendant of `root`, parents before their children (not `root` itself). */
export function descendants(root: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${String(pid)}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      for (const word of readText(`/proc/${String(pid)}/task/${task}/children`).split(' ')) {
        const child = Number(word);
        if (word === '' || !Number.isSafeInteger(child) || seen.has(child)) continue;
        seen.add(child);
        out.push(child);
        queue.push(child);
      }
    }
  }
  return out;
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
