/**
 * The checks a profile's inputs must pass before a snapshot is stored or a session starts, done
 * without starting anything: no literal of the pack, codex-base.toml or a granted registry entry
 * holds a known credential value, and no granted server's definition changed since its pin.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { configFiles, type Environment } from '../../foundation/paths/directories.js';
import { checkPins } from '../lock/check-pins.js';
import { readLockFile } from '../lock/lock-file.js';
import { knownCredentials } from '../registry/credential-literals.js';
import { loadCredentials } from '../registry/credentials.js';
import type { CredentialSource } from '../registry/credentials-types.js';
import { referencedEnvVars } from '../registry/types.js';
import {
  profileCredentialLiterals,
  type LiteralInputs,
} from '../profile/pack-credential-literals.js';

export interface TrustCheckInput extends LiteralInputs {
  readonly configDir: string;
  readonly env: Environment;
  readonly home: string;
  /** Already loaded credentials (loaded from the config dir otherwise). */
  readonly credentials?: CredentialSource;
}

/** `known-credential-literal` and `definition-drift` errors for a profile's inputs. */
export async function trustChecks(input: TrustCheckInput): Promise<Diagnostic[]> {
  const [lock, source] = await Promise.all([
    readLockFile(input.configDir),
    input.credentials !== undefined
      ? Promise.resolve(input.credentials)
      : loadCredentials(configFiles(input.configDir).credentials, input.env).then((c) => c.source),
  ]);
  const known = knownCredentials(
    source,
    input.entries.flatMap((e) => referencedEnvVars(e.definition)),
  );
  const pins = await checkPins(input.entries, lock, { env: input.env, home: input.home });
  return [
    ...profileCredentialLiterals(input, known),
    ...pins.filter((d) => d.code === 'definition-drift'),
  ];
}
