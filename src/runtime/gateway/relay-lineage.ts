/**
 * Who a relay is, read from Linux's /proc: the relay's pid and start time, its parent (the Codex
 * process that started it) and that parent's start time, and whether the pid really runs
 * `gateway connect`. Start times make a reused pid look like a different process.
 */
import { readFileSync } from 'node:fs';

/** A process as /proc names it: pid and start time (clock ticks after boot). */
export interface ProcessStamp {
  readonly pid: number;
  readonly start: string;
}

/** A relay and the Codex process that started it. */
export interface RelayLineage {
  readonly relay: ProcessStamp;
  readonly parent: ProcessStamp;
}

function stat(pid: number): { ppid: number; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the command name (field 2) may hold spaces and parentheses: fields follow the last ')'
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const start = fields[19];
  if (!Number.isInteger(ppid) || ppid <= 0 || start === undefined) return undefined;
  return { ppid, start };
}

function runsRelay(pid: number): boolean {
  let args: string[];
  try {
    args = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0');
  } catch {
    return false;
  }
  const at = args.indexOf('gateway');
  return at !== -1 && args[at + 1] === 'connect';
}

/**
 * The lineage of the live `gateway connect` relay `pid`, or undefined when there is no such
 * process, it runs something else, or its parent cannot be read.
 */
export function relayLineage(pid: unknown): RelayLineage | undefined {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 1) return undefined;
  const own = stat(pid);
  if (own === undefined || !runsRelay(pid)) return undefined;
  const parent = stat(own.ppid);
  if (parent === undefined) return undefined;
  // read again: the relay must not have ended (and its pid been reused) meanwhile
  const again = stat(pid);
  if (again?.start !== own.start || again.ppid !== own.ppid) return undefined;
  return { relay: { pid, start: own.start }, parent: { pid: own.ppid, start: parent.start } };
}

export function sameProcess(a: ProcessStamp, b: ProcessStamp): boolean {
  return a.pid === b.pid && a.start === b.start;
}
