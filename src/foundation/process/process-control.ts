/**
 * Small process helpers: whether a pid is alive, signalling a process group (every participant
 * and Codex child runs in its own group so its MCP servers go with it), the processes descending
 * from one (as Linux's /proc shows them), and waiting for an exit.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { parentOf } from './process-ancestry.js';

/**
 * Whether `pid` names a running process. A zombie is not running: it has exited and only waits
 * for its parent to reap it, which for the orphans of a container's ended init can take a while.
 */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** Whether Linux's /proc shows `pid` as exited but not reaped (false where /proc says nothing). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // the state follows the command name, which is in parentheses and may hold any character
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

/** Every process's children, by parent, as /proc shows them now (empty where it says nothing). */
export function processChildren(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return children;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(name);
    if (parent === undefined) continue;
    const siblings = children.get(parent);
    if (siblings === undefined) children.set(parent, [Number(name)]);
    else siblings.push(Number(name));
  }
  return children;
}

/**
 * The processes descending from `pid`, not `pid` itself, children before their own children
 * (`children` as `processChildren()` read it). A process started after that read is not in it.
 */
export function descendantsOf(
  pid: number,
  children: ReadonlyMap<number, readonly number[]> = processChildren(),
): number[] {
  const found: number[] = [];
  const seen = new Set<number>([pid]);
  for (let queue = [pid]; queue.length > 0;) {
    const next: number[] = [];
    for (const parent of queue) {
      for (const child of children.get(parent) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        found.push(child);
        next.push(child);
      }
    }
    queue = next;
  }
  return found;
}

/** Signals the process group led by `pid`, falling back to the process alone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Whether any process is left in the process group `pgid`. */
export function groupAlive(pgid: number): boolean {
  if (!Number.isInteger(pgid) || pgid <= 0) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Ends what is left of a process group whose leader has exited: SIGTERM first — a command in
 * Codex's sandbox then removes the mount points the sandbox made on the host (`.git`, `.codex`, …
 * in the working directory), which SIGKILL would leave behind — and SIGKILL after `graceMs`.
 */
export async function endGroupRemains(pgid: number, graceMs = 1000): Promise<void> {
  if (!groupAlive(pgid)) return;
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && groupAlive(pgid)) {
    await new Promise((r) => setTimeout(r, 25));
  }
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Ends a process group: SIGTERM, then SIGKILL after `graceMs` if the leader is still alive.
 * Resolves when the leader has exited and its group has ended, or the kill was sent.
 */
export async function terminateGroup(
  pid: number,
  graceMs = 3000,
  child?: ChildProcess,
): Promise<void> {
  signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (child ? child.exitCode !== null || child.signalCode !== null : !isAlive(pid)) {
      // the leader is gone; make sure nothing of its group lingers
      await endGroupRemains(pid);
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  signalGroup(pid, 'SIGKILL');
}

/** Exit code convention for a child that died of a signal: 128 + signal number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const numbers: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGTERM: 15,
  };
  return 128 + (signal !== null ? (numbers[signal] ?? 1) : 1);
}
