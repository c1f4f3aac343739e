/**
 * Builds the environment of a Codex process (session root or participant) from scratch: a small
 * base of system, locale, proxy and CA variables, Codex's own auth variables, and exactly the
 * names the process's servers reference. Nothing else of the launch environment is inherited.
 */
import type { Environment } from '../paths/directories.js';
import type { CredentialSource } from '../registry/credentials-types.js';

/** System, terminal, locale, proxy and CA-bundle names taken from the launch environment. */
export const BASE_ENV_NAMES: readonly string[] = [
  'HOME',
  'PATH',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
];

/** Prefixes of base names (`LC_ALL`, `LC_CTYPE`, …). */
export const BASE_ENV_PREFIXES: readonly string[] = ['LC_'];

/**
 * Codex's own authentication and endpoint variables. Like referenced names they may come from the
 * launch environment or, failing that, from `credentials.env`.
 */
export const CODEX_AUTH_ENV_NAMES: readonly string[] = [
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'CODEX_ACCESS_TOKEN',
  'OPENAI_BASE_URL',
  'OPENAI_ORGANIZATION',
  'OPENAI_PROJECT',
  'CODEX_CA_CERTIFICATE',
];

export interface ChildEnvOptions {
  /** The process's private Codex home; set as `CODEX_HOME`. */
  readonly codexHome?: string;
  /** Further names to treat like referenced names (for example a model provider's `env_key`). */
  readonly extraNames?: readonly string[];
}

export interface ChildEnv {
  readonly env: Record<string, string>;
  /** Referenced names (process names and extra names) that have no value anywhere, sorted. */
  readonly missing: string[];
}

/**
 * The environment of one Codex process. Base names come from `launchEnv`; referenced names,
 * extra names and Codex auth names come from `launchEnv`, then `credentials`. `CODEX_HOME` is the
 * private home when given and is never taken from the launch environment.
 */
export function buildChildEnv(
  processEnvNames: readonly string[],
  launchEnv: Environment,
  credentials: CredentialSource,
  options: ChildEnvOptions = {},
): ChildEnv {
  const env: Record<string, string> = {};
  const fromLaunch = (name: string): string | undefined => {
    const value = launchEnv[name];
    return value === undefined ? undefined : value;
  };
  for (const name of BASE_ENV_NAMES) {
    const value = fromLaunch(name);
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(launchEnv)) {
    if (value !== undefined && BASE_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) {
      env[name] = value;
    }
  }
  // an empty launch value counts as absent, as in the credential source
  const lookup = (name: string): string | undefined => {
    const value = fromLaunch(name);
    return value !== undefined && value !== '' ? value : credentials.lookup(name)?.value;
  };
  for (const name of CODEX_AUTH_ENV_NAMES) {
    const value = lookup(name);
    if (value !== undefined) env[name] = value;
  }
  const missing = new Set<string>();
  for (const name of [...processEnvNames, ...(options.extraNames ?? [])]) {
    const value = lookup(name);
    if (value === undefined) missing.add(name);
    else env[name] = value;
  }
  if (options.codexHome !== undefined) env.CODEX_HOME = options.codexHome;
  else delete env.CODEX_HOME;
  return { env, missing: [...missing].sort() };
}
