/**
 * The model side of `profile doctor`: whether Codex will have a model login or provider key
 * (the base Codex home's `auth.json`, `OPENAI_API_KEY`, the `env_key` of the provider
 * `codex-base.toml` selects), reported as presence only, never a value; and whether real Codex
 * accepts `codex-base.toml`, measured with `codex app-server --strict-config`, each unknown key
 * reported at its position with a did-you-mean.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { stringify } from 'smol-toml';

import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { didYouMean } from '../../foundation/diagnostics/did-you-mean.js';
import { expandTilde, type Environment } from '../../foundation/paths/directories.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import { parseTomlBytes, type TomlTable } from '../../foundation/toml/parse-toml.js';
import type { KeyPositions } from '../../foundation/toml/key-positions.js';

/** What doctor reports about model access; names and presence only. */
export interface ModelAccess {
  /** The provider `model_provider` selects (Codex's default is `openai`). */
  readonly provider: string;
  readonly auth_json: boolean;
  readonly openai_api_key: boolean;
  /** The selected provider's `env_key`, when it has one, and whether it is set. */
  readonly env_key?: { readonly name: string; readonly present: boolean };
  /** Whether the selected provider needs no login at all (a custom provider without a key). */
  readonly no_auth_needed: boolean;
}

/**
 * Top-level `config.toml` keys of Codex, for did-you-mean suggestions only: whether a key is
 * unknown is decided by real Codex (`--strict-config`), not by this list.
 */
const COMMON_CODEX_KEYS = [
  'model',
  'model_provider',
  'model_providers',
  'model_reasoning_effort',
  'model_reasoning_summary',
  'model_verbosity',
  'model_context_window',
  'approval_policy',
  'sandbox_mode',
  'sandbox_workspace_write',
  'shell_environment_policy',
  'features',
  'profiles',
  'profile',
  'history',
  'tui',
  'notify',
  'instructions',
  'developer_instructions',
  'tools',
  'web_search',
  'otel',
  'file_opener',
  'hide_agent_reasoning',
  'show_raw_agent_reasoning',
  'disable_response_storage',
  'project_doc_max_bytes',
];

const PROVIDER_KEYS = [
  'name',
  'base_url',
  'env_key',
  'env_key_instructions',
  'wire_api',
  'query_params',
  'http_headers',
  'env_http_headers',
  'request_max_retries',
  'stream_max_retries',
  'stream_idle_timeout_ms',
  'requires_openai_auth',
];

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The base Codex home (`$CODEX_HOME`, else `~/.codex`), which holds `auth.json`. */
export function baseCodexHome(env: Environment, home: string): string {
  const fromEnv = env.CODEX_HOME;
  return fromEnv !== undefined && fromEnv !== ''
    ? expandTilde(fromEnv, home)
    : join(home, '.codex');
}

/** Model access from the base settings and the environment (pure but for `authJsonExists`). */
export function modelAccess(
  base: TomlTable,
  credentials: CredentialSource,
  authJsonExists: boolean,
): ModelAccess {
  const provider = typeof base.model_provider === 'string' ? base.model_provider : 'openai';
  const providers = isTable(base.model_providers) ? base.model_providers : {};
  const table = providers[provider];
  const custom = isTable(table) ? table : undefined;
  const envKey =
    custom !== undefined && typeof custom.env_key === 'string' ? custom.env_key : undefined;
  const needsOpenAi = custom === undefined || custom.requires_openai_auth === true;
  return {
    provider,
    auth_json: authJsonExists,
    openai_api_key: credentials.lookup('OPENAI_API_KEY') !== undefined,
    ...(envKey !== undefined
      ? { env_key: { name: envKey, present: credentials.lookup(envKey) !== undefined } }
      : {}),
    no_auth_needed: !needsOpenAi && envKey === undefined,
  };
}

/** Diagnostics about `access`: a session without a login or key would only retry. */
export function modelAccessDiagnostics(access: ModelAccess, baseFile: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (access.env_key !== undefined && !access.env_key.present) {
    out.push(
      diagnostic({
        code: 'model-provider-key-missing',
        message: `model provider '${access.provider}' reads its key from ${access.env_key.name}, which is not set; export it or add ${access.env_key.name}=… to credentials.env (Codex would otherwise retry every request)`,
        file: baseFile,
        path: `model_providers.${access.provider}.env_key`,
      }),
    );
  }
  const custom = access.env_key !== undefined || access.no_auth_needed;
  if (!custom && !access.auth_json && !access.openai_api_key) {
    out.push(
      diagnostic({
        severity: 'warning',
        code: 'model-auth-missing',
        message: `Codex has no model login: no auth.json in the base Codex home and no OPENAI_API_KEY; run \`codex login\` (or export OPENAI_API_KEY), or point codex-base.toml at another provider — for an offline try, \`codex-mmo scripted-model\` prints the lines`,
      }),
    );
  }
  return out;
}

/** Every string value of a TOML table, at any depth. */
function stringValues(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) for (const item of value) stringValues(item, out);
  else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) stringValues(item, out);
  }
  return out;
}

/**
 * Shortened first line of Codex's complaint, quoted values hidden (they could be secrets): every
 * "…" and '…', and a `…` that is a value written in the file (Codex quotes a bad value that way,
 * next to the accepted ones, which stay readable).
 */
function codexComplaint(stderr: string, written: ReadonlySet<string>): string | undefined {
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith('Error:'));
  if (line === undefined) return undefined;
  return line
    .replace(/^Error:\s*/, '')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/`([^`]*)`/g, (quoted, inner: string) => (written.has(inner) ? '`…`' : quoted))
    .slice(0, 300);
}

function runStrictConfig(
  codexPath: string,
  codexHome: string,
  env: Environment,
): Promise<{ stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(codexPath, ['app-server', '--strict-config'], {
      env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '', CODEX_HOME: codexHome },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let timedOut = false;
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, 20_000);
    child.once('error', () => {
      clearTimeout(timer);
      resolve({ stderr, timedOut });
    });
    child.once('close', () => {
      clearTimeout(timer);
      resolve({ stderr, timedOut });
    });
  });
}

/** Removes the key at a dotted path from a TOML table (in place). */
function removeKey(table: TomlTable, path: readonly string[]): boolean {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(table, head)) return false;
  if (rest.length === 0) return Reflect.deleteProperty(table, head);
  const inner = table[head];
  return isTable(inner) && removeKey(inner, rest);
}

/**
 * Asks real Codex whether it knows every key of codex-base.toml: runs `codex app-server
 * --strict-config` in a scratch Codex home holding the base settings, once per unknown key found
 * (Codex names the first), at most `maxKeys` times. Returns positioned diagnostics.
 */
export async function strictConfigDiagnostics(
  codexPath: string,
  baseFile: string,
  bytes: Uint8Array,
  env: Environment,
  maxKeys = 8,
): Promise<Diagnostic[]> {
  const parsed = parseTomlBytes(bytes, baseFile);
  if (!parsed.ok) return []; // codex-base validation reports the syntax error
  const positions: KeyPositions = parsed.positions;
  const table = parsed.value;
  const out: Diagnostic[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'codex-mmo-strict-'));
  try {
    for (let round = 0; round < maxKeys; round++) {
      await writeFile(join(scratch, 'config.toml'), stringify(table), { mode: 0o600 });
      const { stderr, timedOut } = await runStrictConfig(codexPath, scratch, env);
      if (timedOut) break;
      const unknown = /unknown configuration field `([^`]+)`/.exec(stderr)?.[1];
      if (unknown === undefined) {
        const complaint = codexComplaint(stderr, stringValues(table));
        if (complaint !== undefined && !/bubblewrap/i.test(complaint)) {
          out.push(
            diagnostic({
              code: 'codex-base-rejected',
              message: `Codex rejects codex-base.toml: ${complaint.replace(/^[^:]*config\.toml:\d+:\d+:\s*/, '')}`,
              file: baseFile,
            }),
          );
        }
        break;
      }
      const path = unknown.split('.');
      const key = path[path.length - 1] ?? unknown;
      const at = positions.lookup(path);
      const candidates =
        path.length === 1 ? COMMON_CODEX_KEYS : path[0] === 'model_providers' ? PROVIDER_KEYS : [];
      out.push(
        diagnostic({
          code: 'codex-base-unknown-key',
          message: `Codex does not know the key ${unknown}${didYouMean(key, candidates)}; Codex ignores it without --strict-config, so the setting has no effect. Fix or remove it`,
          file: baseFile,
          ...(at !== undefined ? { line: at.line, column: at.column } : {}),
          path: unknown,
        }),
      );
      if (!removeKey(table, path)) break;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return out;
}

/** Whether the base home has `auth.json` (a file check; its content is never read). */
export function authJsonExists(codexHome: string): boolean {
  return existsSync(join(codexHome, 'auth.json'));
}

export interface ModelSideInput {
  readonly baseFile: string;
  /** The bytes of codex-base.toml, when it exists and could be read. */
  readonly baseBytes?: Uint8Array;
  readonly base: TomlTable;
  readonly env: Environment;
  readonly home: string;
  readonly credentials: CredentialSource;
  /** The Codex binary doctor found, to measure codex-base.toml against. */
  readonly codexPath?: string;
}

/** Every model-side check of doctor. */
export async function modelSideCheck(
  input: ModelSideInput,
): Promise<{ access: ModelAccess; diagnostics: Diagnostic[] }> {
  const access = modelAccess(
    input.base,
    input.credentials,
    authJsonExists(baseCodexHome(input.env, input.home)),
  );
  const diagnostics = modelAccessDiagnostics(access, input.baseFile);
  if (input.codexPath !== undefined && input.baseBytes !== undefined) {
    diagnostics.push(
      ...(await strictConfigDiagnostics(
        input.codexPath,
        input.baseFile,
        input.baseBytes,
        input.env,
      )),
    );
  }
  return { access, diagnostics };
}
