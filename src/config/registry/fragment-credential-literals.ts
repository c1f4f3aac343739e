/**
 * The registry side of the credential-literal check: every literal of each valid entry's
 * definition compared with the known credential values (`credential-literals.ts`), reported as
 * `known-credential-literal` at the fragment key, with how to reference the variable instead.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { formatKeyPath } from '../../foundation/toml/key-positions.js';
import {
  describeMatch,
  findCredentialLiterals,
  type KnownCredential,
} from './credential-literals.js';
import { entryLocation } from './entry-location.js';
import type { RegistryEntry } from './types.js';

function instead(entry: RegistryEntry, credential: string): string {
  return entry.definition.transport === 'stdio'
    ? `forward the variable by name instead (env_vars = ["${credential}"]) and let the server read it from its environment`
    : `send it from the variable instead (bearer_token_env_var = "${credential}" or env_http_headers = { "Header-Name" = "${credential}" })`;
}

/** `known-credential-literal` errors for the literals of `entries` holding a known credential. */
export function fragmentCredentialLiterals(
  entries: readonly RegistryEntry[],
  credentials: readonly KnownCredential[],
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of entries) {
    const rest = Object.fromEntries(
      Object.entries(entry.definition).filter(([key]) => key !== 'id'),
    );
    const server = entry.definition.id;
    for (const found of findCredentialLiterals(rest, credentials)) {
      // a key holding the value is named by its table, never by itself
      const path = found.inKey ? found.path.slice(0, -1) : found.path;
      const label = path.length > 0 ? formatKeyPath(path) : 'the server table';
      out.push(
        diagnostic({
          code: 'known-credential-literal',
          message: `${label} of server '${server}' holds ${describeMatch(found)} (a credential from credentials.env or the launch environment); a literal is copied into snapshots, Codex configs and command output. Remove it and ${instead(entry, found.credential)}`,
          server,
          ...entryLocation(entry, path),
        }),
      );
    }
  }
  return out;
}
