/**
 * Whether a process descends from another, from /proc (the parent of each process up to init),
 * with start times so a reused pid never counts as the ancestor it replaced. Linux only.
 */
import { readFileSync } from 'node:fs';

import { processStart, type ProcessStamp } from './tcp-peer.js';

/** The parent pid of `pid` (field 4 of /proc/PID/stat), or undefined when it is gone. */
export function parentOf(pid: number | string): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // the command name (field 2) may hold spaces and parentheses: fields follow the last ')'
  const parent = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
  return Number.isInteger(parent) ? parent : undefined;
}

/** `pid` as /proc names it now, or undefined when it is gone. */
export function stampOf(pid: number): ProcessStamp | undefined {
  const start = processStart(pid);
  return start === undefined ? undefined : { pid, start };
}

/** Whether `pid` is `ancestor` or one of its descendants (both still running). */
export function descendsFrom(pid: number, ancestor: ProcessStamp): boolean {
  const seen = new Set<number>();
  for (let p: number | undefined = pid; p !== undefined && p > 0; p = parentOf(p)) {
    if (seen.has(p)) return false;
    seen.add(p);
    if (p === ancestor.pid) return processStart(p) === ancestor.start;
  }
  return false;
}
