/**
 * The trust checks of a stored snapshot at session start (`profile/trust-checks.ts`): its pack
 * texts, base settings and server definitions against today's credential values, and its
 * definitions against today's pins, so a reused compile cannot carry a credential or a changed
 * server into a session. Starts nothing.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import {
  configFiles,
  type Directories,
  type Environment,
} from '../../foundation/paths/directories.js';
import { trustChecks } from '../../config/compile/trust-checks.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { RegistryEntry } from '../../config/registry/types.js';
import type { StoredSnapshot } from '../../config/snapshot/types.js';

export async function snapshotTrustChecks(
  stored: StoredSnapshot,
  request: { readonly dirs: Directories; readonly env: Environment; readonly home: string },
  credentials: CredentialSource,
): Promise<Diagnostic[]> {
  const files = configFiles(request.dirs.configDir);
  const entries: RegistryEntry[] = Object.values(stored.snapshot.servers).map((definition) => ({
    definition,
    file: files.registryDir,
    replaces: [],
  }));
  return trustChecks({
    profile: stored.snapshot.profile,
    base: stored.snapshot.base,
    baseFile: files.codexBase,
    entries,
    configDir: request.dirs.configDir,
    env: request.env,
    home: request.home,
    credentials,
  });
}
