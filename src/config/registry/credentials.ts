/**
 * Operator credentials: `credentials.env` (dotenv syntax, parsed strictly) merged with the
 * launch environment, which wins. Reports only whether a variable is present and where from;
 * values stay inside the returned `CredentialSource` and never reach a diagnostic.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { Environment } from '../../foundation/paths/directories.js';
import type { CredentialOrigin, CredentialSource } from './credentials-types.js';
import { registryDiagnostic } from './diagnostic-codes.js';
import { parseDotenv } from './parse-dotenv.js';
import { formatBytes, readConfigFile } from './read-config-file.js';

/** File mode bits that must be clear on credentials.env: any access by group or others. */
export const CREDENTIALS_FORBIDDEN_MODE_BITS = 0o077;

export interface LoadedCredentials {
  readonly source: CredentialSource;
  readonly diagnostics: Diagnostic[];
}

/**
 * Merges parsed `credentials.env` values with the launch environment (pure). The launch
 * environment wins. An empty value counts as absent in both places, so an exported but empty
 * variable falls back to the file, and a variable that is empty everywhere is reported missing.
 * `secretValues()` returns every non-empty value from the file, plus the launch-environment value
 * of every name the file defines or that has been looked up.
 */
export function credentialSourceFrom(
  fileValues: Readonly<Record<string, string>>,
  env: Environment,
  file: string,
  fileExists: boolean,
): CredentialSource {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(fileValues)) {
    if (value !== '') values.set(name, value);
  }
  const lookedUp = new Set<string>();
  const lookup = (name: string): { origin: CredentialOrigin; value: string } | undefined => {
    lookedUp.add(name);
    const fromEnv = Object.hasOwn(env, name) ? env[name] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') return { origin: 'environment', value: fromEnv };
    const fromFile = values.get(name);
    if (fromFile !== undefined) return { origin: 'credentials.env', value: fromFile };
    return undefined;
  };
  return {
    file,
    fileExists,
    lookup,
    fileNames(): readonly string[] {
      return [...values.keys()];
    },
    secretValues(): readonly string[] {
      const out = new Set<string>(values.values());
      for (const name of new Set([...values.keys(), ...lookedUp])) {
        const fromEnv = Object.hasOwn(env, name) ? env[name] : undefined;
        if (fromEnv !== undefined && fromEnv !== '') out.add(fromEnv);
      }
      return [...out];
    },
  };
}

/** `0640`-style octal permission string. */
function octalMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/**
 * Reads `credentials.env` (a missing file is fine) and merges it with `env`. Problems come back as
 * diagnostics: `credentials-file-permissions` (warning) when group or others have any access,
 * `credentials-file-unreadable` (error) when the file exists but cannot be read as a regular file.
 */
export async function loadCredentials(file: string, env: Environment): Promise<LoadedCredentials> {
  const diagnostics: Diagnostic[] = [];
  const result = await readConfigFile(file);
  switch (result.kind) {
    case 'missing':
      return { source: credentialSourceFrom({}, env, file, false), diagnostics };
    case 'not-a-file':
      diagnostics.push(
        registryDiagnostic('credentials-file-unreadable', {
          message: `credentials file is ${result.what}, not a regular file; replace it with a dotenv file of NAME=value lines`,
          file,
        }),
      );
      return { source: credentialSourceFrom({}, env, file, false), diagnostics };
    case 'too-large':
      diagnostics.push(
        registryDiagnostic('credentials-file-unreadable', {
          message: `credentials file is ${formatBytes(result.size)}, over the ${formatBytes(result.limit)} limit; keep only NAME=value lines in it`,
          file,
        }),
      );
      return { source: credentialSourceFrom({}, env, file, false), diagnostics };
    case 'unreadable':
      diagnostics.push(
        registryDiagnostic('credentials-file-unreadable', {
          message: `cannot read the credentials file (${result.reason}); make it readable by you (chmod 600)`,
          file,
        }),
      );
      return { source: credentialSourceFrom({}, env, file, false), diagnostics };
    case 'ok':
      break;
  }
  if ((result.mode & CREDENTIALS_FORBIDDEN_MODE_BITS) !== 0) {
    diagnostics.push(
      registryDiagnostic('credentials-file-permissions', {
        message: `credentials file is accessible by group or others (mode ${octalMode(result.mode)}); run \`chmod 600 ${file}\``,
        file,
      }),
    );
  }
  const parsed = parseDotenv(result.bytes);
  for (const problem of parsed.problems) {
    diagnostics.push(
      registryDiagnostic(problem.code, {
        message: problem.message,
        file,
        line: problem.line,
        column: problem.column,
        ...(problem.name !== undefined ? { path: problem.name } : {}),
      }),
    );
  }
  const fileValues = parsed.values;
  return { source: credentialSourceFrom(fileValues, env, file, true), diagnostics };
}
