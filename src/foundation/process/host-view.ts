/**
 * The host view of a session's Codex process (docs/design.md §9): a private `/tmp` and
 * `/dev/shm`, no `/run/user` nor the operator's runtime directory, and the socket allowlist of
 * `socket-filter.ts`, made by bubblewrap (`bwrap`, the copy Codex ships beside its binary, else the
 * system's) between the container and the command. Found once per `bwrap` by trying exactly that;
 * what is unavailable is reported with the reason.
 */
import {
  spawn,
  type ChildProcess,
  type IOType,
  type SpawnOptions,
  type StdioNull,
  type StdioPipe,
} from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';

import { pathWithin } from '../paths/path-within.js';
import { hostSocketFilter } from './socket-filter.js';

/** Whether this machine can build the host view, with what, or why not. */
export type HostView =
  | { readonly available: true; readonly bwrap: string }
  | { readonly available: false; readonly reason: string };

/** What one process's view must still show, real paths. */
export interface HostViewNeeds {
  /** Directories shown as they are on the host (working directory, own home, Codex's files). */
  readonly keep: readonly string[];
  /** Directories made empty inside the private `/tmp` (its `$TMPDIR` there). */
  readonly make?: readonly string[];
  /** Runtime directories hidden besides `/run/user` (the operator's `$XDG_RUNTIME_DIR`). */
  readonly hide?: readonly string[];
}

/** How a command is started inside the view: `bwrap` and its options up to the command. */
export interface HostViewLaunch {
  readonly argv: readonly string[];
  /** The seccomp program, given to `bwrap` on descriptor `HOST_FILTER_FD`. */
  readonly filter: Buffer;
}

/** The descriptor `bwrap` reads the filter from (above those the container's init uses). */
export const HOST_FILTER_FD = 10;

const PRIVATE_DIRS = ['/tmp', '/dev/shm'] as const;
const RUNTIME_DIRS = ['/run/user'] as const;

/** Where `bwrap` is looked for: beside the Codex binary (its `codex-resources`), then the system's. */
export function bwrapCandidates(codexBin: string): string[] {
  return [
    join(dirname(dirname(codexBin)), 'codex-resources', 'bwrap'),
    '/usr/bin/bwrap',
    '/bin/bwrap',
  ];
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `bwrap` options of one process's view. A directory to keep that holds a private directory
 * (a working directory of `/`, or `/tmp` itself) leaves that one shared: the socket filter still
 * holds there. `present` tells which directories exist (tested: the default looks).
 */
export function hostViewLaunch(
  view: HostView & { available: true },
  needs: HostViewNeeds,
  present: (path: string) => boolean = exists,
): HostViewLaunch | undefined {
  const filter = hostSocketFilter();
  if (filter === undefined) return undefined;
  const keeps = [...new Set(needs.keep)];
  const covers = (dir: string): boolean => keeps.some((k) => pathWithin(dir, k));
  const args = ['--dev-bind', '/', '/'];
  const hidden = [...PRIVATE_DIRS, ...RUNTIME_DIRS, ...(needs.hide ?? [])].filter(
    (dir, i, all) => all.indexOf(dir) === i && !covers(dir) && present(dir),
  );
  for (const dir of hidden) {
    const shared = (PRIVATE_DIRS as readonly string[]).includes(dir);
    args.push(...(shared ? ['--perms', '1777'] : ['--perms', '0700']), '--tmpfs', dir);
  }
  const inside = (path: string): boolean => hidden.some((dir) => pathWithin(path, dir));
  for (const dir of keeps.filter(inside)) args.push('--bind', dir, dir);
  for (const dir of (needs.make ?? []).filter(inside)) {
    if (!keeps.some((k) => pathWithin(dir, k))) args.push('--dir', dir);
  }
  args.push('--seccomp', String(HOST_FILTER_FD), '--');
  return { argv: [view.bwrap, ...args], filter };
}

function exists(path: string): boolean {
  try {
    accessSync(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

interface ProbeResult {
  readonly ok: boolean;
  readonly detail: string;
}

/** Starts `command` inside `launch`'s view, the filter on its descriptor. */
export function spawnInView(
  launch: HostViewLaunch,
  command: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> & {
    stdio: readonly (IOType | StdioNull | StdioPipe | number | null | undefined)[];
  },
): ChildProcess {
  const stdio: (IOType | StdioNull | StdioPipe | number | null | undefined)[] = [...options.stdio];
  while (stdio.length < HOST_FILTER_FD) stdio.push('ignore');
  stdio[HOST_FILTER_FD] = 'pipe';
  const [bwrap, ...args] = [...launch.argv, ...command];
  const child = spawn(bwrap ?? 'bwrap', args, { ...options, stdio });
  const fd = (child.stdio as unknown[])[HOST_FILTER_FD] as Writable | null | undefined;
  fd?.on('error', () => undefined);
  fd?.end(launch.filter);
  return child;
}

/** Runs `true` in a view of its own with `bwrap`. */
function probeView(bwrap: string, shell = '/bin/sh'): Promise<ProbeResult> {
  const launch = hostViewLaunch({ available: true, bwrap }, { keep: [] });
  if (launch === undefined) return Promise.resolve({ ok: false, detail: 'unsupported machine' });
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawnInView(launch, [shell, '-c', 'exit 0'], {
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 10_000,
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error) => {
      resolve({ ok: false, detail: error.message });
    });
    child.once('close', (code, signal) => {
      const detail = stderr.trim().split('\n')[0] || `exit ${String(code ?? signal)}`;
      resolve({ ok: code === 0, detail });
    });
  });
}

/**
 * Finds the first `bwrap` of `candidates` that builds the view here; `arch` is this machine's.
 * `tryView` runs one probe (tested: the default starts `bwrap` with the filter).
 */
export async function findHostView(
  candidates: readonly string[],
  tryView: (bwrap: string) => Promise<ProbeResult> = (bwrap) => probeView(bwrap),
): Promise<HostView> {
  if (hostSocketFilter() === undefined) {
    return {
      available: false,
      reason: `no socket filter for this machine's architecture (${process.arch})`,
    };
  }
  const found = candidates.filter(executable);
  if (found.length === 0) {
    return {
      available: false,
      reason: `bubblewrap (\`bwrap\`) was not found (looked at ${candidates.join(', ')})`,
    };
  }
  let detail = '';
  for (const bwrap of found) {
    const result = await tryView(bwrap);
    if (result.ok) return { available: true, bwrap };
    detail = `${bwrap}: ${result.detail}`;
  }
  return { available: false, reason: `bubblewrap cannot build the view here (${detail})` };
}
