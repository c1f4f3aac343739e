/**
 * Builds the environment of a Codex process (session root or participant) from scratch: a small
 * base of system, locale, proxy and CA variables, Codex's own auth variables, and exactly the
 * names the process's servers reference. Nothing else of the launch environment is inherited.
 */
import type { Environment } from '../../foundation/paths/directories.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';

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

/** Prefixes of base names (`LC_ALL`, `LC_CTYPE`, …); only the POSIX/glibc categories pass. */
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
    const value = baseValue(name, fromLaunch(name));
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(launchEnv)) {
    if (value !== undefined && BASE_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) {
      const kept = baseValue(name, value);
      if (kept !== undefined) env[name] = kept;
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

/** The locale categories an `LC_*` variable may name (POSIX and glibc). */
export const LOCALE_CATEGORIES: ReadonlySet<string> = new Set([
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_ADDRESS',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_NAME',
  'LC_PAPER',
  'LC_TELEPHONE',
]);

/** A locale name: `C`, `POSIX`, `en_US`, `en_US.UTF-8`, `de_DE@euro`, `C.UTF-8`. */
const LOCALE_NAME =
  /^(?:C|POSIX|[A-Za-z]{2,8}(?:_[A-Za-z0-9]{2,8})?)(?:\.[A-Za-z0-9_-]{1,32})?(?:@[A-Za-z0-9_=-]{1,32})?$/;

const PROXY_NAMES = new Set([
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
]);

/**
 * The value a base variable is forwarded with, or undefined to leave it out. Locale variables
 * (`LANG`, `LC_<category>`, `LANGUAGE`) pass only when they hold locale names, so an arbitrary
 * `LC_*` variable cannot carry a value (a secret) into every process. Proxy variables lose any
 * `user:password@` part: a proxy credential would otherwise reach every shell the model runs.
 */
export function baseValue(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (name.startsWith('LC_')) {
    return LOCALE_CATEGORIES.has(name) && (value === '' || LOCALE_NAME.test(value))
      ? value
      : undefined;
  }
  if (name === 'LANG') return value === '' || LOCALE_NAME.test(value) ? value : undefined;
  if (name === 'LANGUAGE') {
    return value.split(':').every((part) => part === '' || LOCALE_NAME.test(part))
      ? value
      : undefined;
  }
  if (PROXY_NAMES.has(name)) return withoutUserInfo(value);
  return value;
}

/** A proxy URL without its user-info (`http://u:p@proxy:3128` → `http://proxy:3128`). */
function withoutUserInfo(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(value);
  const start = scheme === null ? 0 : scheme[0].length;
  const slash = value.indexOf('/', start);
  if (slash >= 0 && slash < at) return value;
  return value.slice(0, start) + value.slice(at + 1);
}
