/**
 * How Codex 0.149 would start a Tool MCP server, as data (pure): for stdio the cleared environment
 * (Codex's default names, then the `env_vars` that are set, then literal `env`), arguments and
 * working directory; for streamable HTTP the URL and headers (bearer token, literal and
 * variable-backed headers). Also every credential value involved, so output can be masked.
 */
import { isAbsolute, resolve } from 'node:path';

import { expandTilde, type Environment } from '../../foundation/paths/directories.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type {
  HttpDefinition,
  ServerDefinition,
  StdioDefinition,
} from '../../config/registry/types.js';

/**
 * Variables Codex 0.149 passes from its own environment to every stdio MCP server (measured:
 * `rmcp-client` defaults plus CA-bundle variables); everything else is cleared.
 */
export const CODEX_DEFAULT_ENV_NAMES: readonly string[] = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'USER',
  '__CF_USER_TEXT_ENCODING',
  'LANG',
  'LC_ALL',
  'TERM',
  'TMPDIR',
  'TZ',
  'CODEX_CA_CERTIFICATE',
  'SSL_CERT_FILE',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'NODE_EXTRA_CA_CERTS',
  'GIT_SSL_CAINFO',
  'CARGO_HTTP_CAINFO',
  'BUNDLE_SSL_CA_CERT',
  'npm_config_cafile',
  'NPM_CONFIG_CAFILE',
  'PIP_CERT',
];

/** Codex's default `startup_timeout_sec`. */
export const DEFAULT_STARTUP_TIMEOUT_SEC = 30;

export interface LaunchContext {
  /** The launch environment (what Codex itself would run with). */
  readonly env: Environment;
  readonly home: string;
  /** Working directory Codex would run in; a stdio server without `cwd` starts here. */
  readonly cwd: string;
  readonly credentials: CredentialSource;
}

export interface StdioLaunch {
  readonly transport: 'stdio';
  /** The command as written in the registry. */
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Names of `env_vars` that were set and forwarded. */
  readonly forwarded: readonly string[];
}

export interface HttpLaunch {
  readonly transport: 'streamable_http';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Whether a bearer token is configured but its variable is not set (Codex will not start it). */
  readonly missingBearer: boolean;
}

export type Launch = StdioLaunch | HttpLaunch;

export interface LaunchPlan {
  readonly launch: Launch;
  /** Every credential value that could show up in the server's output; mask these. */
  readonly secrets: readonly string[];
  readonly startupTimeoutMs: number;
}

function present(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function stdioLaunch(
  definition: StdioDefinition,
  ctx: LaunchContext,
  secrets: Set<string>,
): StdioLaunch {
  const env: Record<string, string> = {};
  for (const name of CODEX_DEFAULT_ENV_NAMES) {
    const value = Object.hasOwn(ctx.env, name) ? ctx.env[name] : undefined;
    if (value !== undefined) env[name] = value;
  }
  const forwarded: string[] = [];
  for (const name of definition.env_vars ?? []) {
    const found = ctx.credentials.lookup(name);
    if (found === undefined || !present(found.value)) continue;
    env[name] = found.value;
    forwarded.push(name);
    secrets.add(found.value);
  }
  for (const [name, value] of Object.entries(definition.env ?? {})) env[name] = value;
  let cwd = ctx.cwd;
  if (definition.cwd !== undefined) {
    const expanded = expandTilde(definition.cwd, ctx.home);
    cwd = isAbsolute(expanded) ? expanded : resolve(ctx.cwd, expanded);
  }
  return {
    transport: 'stdio',
    command: definition.command,
    args: [...(definition.args ?? [])],
    cwd,
    env,
    forwarded,
  };
}

function httpLaunch(
  definition: HttpDefinition,
  ctx: LaunchContext,
  secrets: Set<string>,
): HttpLaunch {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(definition.http_headers ?? {})) headers[name] = value;
  for (const [name, variable] of Object.entries(definition.env_http_headers ?? {})) {
    const found = ctx.credentials.lookup(variable);
    if (found === undefined || !present(found.value)) continue;
    headers[name] = found.value;
    secrets.add(found.value);
  }
  let missingBearer = false;
  if (definition.bearer_token_env_var !== undefined) {
    const found = ctx.credentials.lookup(definition.bearer_token_env_var);
    if (found === undefined || !present(found.value)) missingBearer = true;
    else {
      headers.Authorization = `Bearer ${found.value}`;
      secrets.add(found.value);
    }
  }
  return { transport: 'streamable_http', url: definition.url, headers, missingBearer };
}

/** Plans the launch of `definition` in `ctx`. Pure: the command is not resolved here. */
export function planLaunch(definition: ServerDefinition, ctx: LaunchContext): LaunchPlan {
  const secrets = new Set<string>();
  const launch =
    definition.transport === 'stdio'
      ? stdioLaunch(definition, ctx, secrets)
      : httpLaunch(definition, ctx, secrets);
  for (const value of ctx.credentials.secretValues()) if (value !== '') secrets.add(value);
  return {
    launch,
    secrets: [...secrets],
    startupTimeoutMs: (definition.startup_timeout_sec ?? DEFAULT_STARTUP_TIMEOUT_SEC) * 1000,
  };
}
