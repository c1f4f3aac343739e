/**
 * What a session's sandboxed shells may not read (DESIGN §9), from the operator's directories:
 * the config dir, the data dir and the base Codex home whole, and the state dir apart from each
 * process home's `tmp/` helper directory. Paths are given as configured and, where a symlink
 * leads elsewhere, as their real location too, since the sandbox sees real paths.
 */
import { realpath } from 'node:fs/promises';

import type { BoundaryOptions, ReadDeny } from '../compile/session-boundary.js';
import type { Directories } from '../paths/directories.js';

async function withRealPath(path: string): Promise<string[]> {
  const real = await realpath(path).catch(() => path);
  return real === path ? [path] : [path, real];
}

/** The read deny of every process of a session run with `dirs`. */
export async function sessionReadDeny(dirs: Directories): Promise<ReadDeny> {
  const whole = await Promise.all(
    [dirs.configDir, dirs.dataDir, dirs.baseCodexHome].map(withRealPath),
  );
  return {
    dirs: [...new Set(whole.flat())],
    stateDir: await realpath(dirs.stateDir).catch(() => dirs.stateDir),
  };
}

/** The boundary of one process working in `cwd` (its real path). */
export async function processBoundary(deny: ReadDeny, cwd: string): Promise<BoundaryOptions> {
  return { deny, cwd: await realpath(cwd).catch(() => cwd) };
}
