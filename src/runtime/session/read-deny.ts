/**
 * What a session's sandboxed shells may not read (docs/design.md §9), from the operator's
 * directories: the config dir, the data dir, the base Codex home and the state dir, each whole.
 * Paths are given as configured and, where a symlink leads elsewhere, as their real location too,
 * since the sandbox sees real paths. A directory that does not exist yet is denied by its contents'
 * glob, so the sandbox creates nothing on the host.
 */
import { mkdir, realpath, stat } from 'node:fs/promises';

import type { BoundaryOptions, ReadDeny } from '../../config/compile/session-boundary.js';
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
 * Codex's sandbox applies without scanning it.
 */
export async function sessionReadDeny(dirs: Directories): Promise<ReadDeny> {
  await mkdir(dirs.stateDir, { recursive: true, mode: 0o700 });
  return denyWhole([dirs.configDir, dirs.dataDir, dirs.baseCodexHome, dirs.stateDir]);
}

/** The boundary of one process working in `cwd` (its real path). */
export async function processBoundary(deny: ReadDeny, cwd: string): Promise<BoundaryOptions> {
  return { deny, cwd: await realpath(cwd).catch(() => cwd) };
}
