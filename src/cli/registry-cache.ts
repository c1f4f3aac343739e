/**
 * The fragment cache the CLI's read-only registry commands use: `<state-dir>/cache/registry/`,
 * salted with the codex-mmo version and a fingerprint of the installed code. (Imported from its
 * module, not the library index, so that a command loads only what it needs.)
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { type Directories, VERSION } from '../index.js';
import { codeFingerprint, type FragmentCache } from '../config/registry/index.js';

/**
 * The cache, or undefined when the state dir's parent does not exist (a home that is not there):
 * the cache never creates directories outside an existing tree.
 */
export function registryCache(dirs: Directories): FragmentCache | undefined {
  if (!existsSync(dirname(dirs.stateDir))) return undefined;
  return {
    dir: join(dirs.stateDir, 'cache', 'registry'),
    salt: `${VERSION}\n${codeFingerprint()}`,
  };
}
