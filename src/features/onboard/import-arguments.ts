/**
 * Refuses imported command-line arguments that carry a secret (pure): a token-shaped argument or
 * the value after `--api-key`/`--token`, which the registry would store and show. Only the index
 * is named, never the value.
 */
import { formatKeyPath, type KeyPath } from '../../foundation/toml/key-positions.js';
import { secretArgIndexes } from '../../config/registry/credential-patterns.js';
import { entryDiagnostic, type EntryReporter } from './import-literals.js';

/** `import-secret-argument` for each argument of `args` (at `base`) that holds a secret. */
export function secretArguments(
  args: readonly string[],
  base: KeyPath,
  reporter: EntryReporter,
): boolean {
  const found = secretArgIndexes(args);
  for (const index of found) {
    entryDiagnostic(
      reporter,
      'import-secret-argument',
      [...base, index],
      `${formatKeyPath([...base, index])} of server '${reporter.server}' holds a secret on the command line, where the registry would store and show it; make the server read it from an environment variable (env_vars, value in credentials.env) and remove it from the arguments`,
    );
  }
  return found.length > 0;
}
