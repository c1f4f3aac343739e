/**
 * What a session's sandboxed shells may not read (docs/design.md §9), from the operator's
 * directories: the config dir, the data dir, the base Codex home and the state dir, each whole.
 * Paths are given as configured and, where a symlink leads elsewhere, as their real location too,
 * since the sandbox sees real paths. A directory that does not exist yet is denied by its contents'
 * glob, so the sandbox creates nothing on the host.
 */
import { pathWithin } from '../../foundation/paths/path-within.js';
import { mkdir, realpath, stat } from 'node:fs/promises';

import type { BoundaryOptions, ReadDeny } from '../../config/compile/session-boundary.js';
import type { Permissions } from '../../config/profile/types.js';
import type { Directories } from '../../foundation/paths/directories.js';

async function withRealPath(path: string): Promise<string[]> {
  const real = await realpath(path).catch(() => path);
  return real === path ? [path] : [path, real];
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Denies `paths` whole: those that exist by path, the others by their contents' glob. A literal
 * deny of a missing path makes Codex's sandbox create an empty mount-point file at it.
 */
export async function denyWhole(
  paths: readonly string[],
): Promise<Pick<ReadDeny, 'dirs' | 'absentDirs'>> {
  const all = [...new Set((await Promise.all(paths.map(withRealPath))).flat())];
  const present = await Promise.all(all.map(exists));
  return {
    dirs: all.filter((_, i) => present[i] === true),
    absentDirs: all.filter((_, i) => present[i] !== true),
  };
}

/**
 * The read deny of every process of a session run with `dirs`. The state dir, where the session
 * is about to live, is created first (owner-only), so it is denied by one literal entry that
 * Codex's sandbox applies without scanning it. With `masking` (containers that can hide
 * directories) and every directory present, their real paths are `maskable`.
 */
export async function sessionReadDeny(dirs: Directories, masking: boolean): Promise<ReadDeny> {
  await mkdir(dirs.stateDir, { recursive: true, mode: 0o700 });
  const deny = await denyWhole([dirs.configDir, dirs.dataDir, dirs.baseCodexHome, dirs.stateDir]);
  if (!masking || (deny.absentDirs ?? []).length > 0) return deny;
  const real = await Promise.all(deny.dirs.map((dir) => realpath(dir).catch(() => undefined)));
  if (real.some((dir) => dir === undefined)) return deny;
  return { ...deny, maskable: [...new Set(real as string[])] };
}

/** What decides whether one Codex process can be shielded by masks alone. */
export interface ShieldFacts {
  /** Its working directory and its Codex binary, real paths: neither may be hidden. */
  readonly cwd: string;
  readonly codexBin: string;
  /** How many roles it runs (its root and native roles). */
  readonly roles: number;
  /** Whether its home gets a copy of `auth.json`. */
  readonly authFile: boolean;
  /** Where its sandboxed shells can write (`sandboxWritable`), real paths. */
  readonly writable: readonly string[];
}

/**
 * The directories one process's container hides in place of deny entries, or undefined when it
 * needs Codex's deny entries (docs/design.md §9): its own home, which its shells could then
 * read, must hold nothing another role or the operator keeps from them — no `auth.json` copy,
 * no native role's rollouts — its working directory and Codex binary must lie outside them, and
 * none of them inside a directory its shells can write: its own home must not be writable to them.
 */
export function maskedDirs(deny: ReadDeny, facts: ShieldFacts): readonly string[] | undefined {
  const hide = deny.maskable;
  if (hide === undefined || facts.roles > 1 || facts.authFile) return undefined;
  const needed = [facts.cwd, facts.codexBin];
  if (hide.some((dir) => needed.some((path) => pathWithin(path, dir)))) return undefined;
  // a hidden directory inside a writable root would leave the process's own home writable to
  // its shells (the sandbox binds writable roots with what is mounted in them)
  return hide.some((dir) => facts.writable.some((root) => pathWithin(dir, root)))
    ? undefined
    : hide;
}

/**
 * Where a role's sandboxed shells can write, as Codex's built-in profiles give it (real paths):
 * nowhere for read-only; the working directory, `/tmp` and `$TMPDIR` (the process's) for
 * workspace-write; everywhere for full access, which has no sandbox.
 */
export async function sandboxWritable(
  permissions: Permissions,
  cwd: string,
  tmpDir: string | undefined,
): Promise<string[]> {
  if (permissions === 'read-only') return [];
  if (permissions === 'full-access') return ['/'];
  const roots = [cwd, '/tmp', ...(tmpDir !== undefined && tmpDir !== '' ? [tmpDir] : [])];
  return [...new Set(await Promise.all(roots.map((r) => realpath(r).catch(() => r))))];
}

/**
 * Whether Codex arguments given by the operator leave the sandbox as the role's permissions make
 * it: none, or only a model choice. Anything else (`-c`, `--add-dir`, `--sandbox`, …) might widen
 * what the shells can write, so such a session keeps Codex's deny entries.
 */
export function plainCodexArgs(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '-m' || arg === '--model') i += 1;
    else if (!arg.startsWith('--model=')) return false;
  }
  return true;
}

/** The deny entries a process's config carries: none where its container hides the dirs. */
export function configDeny(deny: ReadDeny, masked: readonly string[] | undefined): ReadDeny {
  return masked === undefined ? deny : { dirs: [] };
}

/** The boundary of one process working in `cwd` (its real path). */
export async function processBoundary(deny: ReadDeny, cwd: string): Promise<BoundaryOptions> {
  return { deny, cwd: await realpath(cwd).catch(() => cwd) };
}
