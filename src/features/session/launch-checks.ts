/**
 * What `run` and `exec` check before any process starts, beyond the snapshot's trust checks, so
 * a session that cannot work is refused at once with doctor's words: every server of the snapshot
 * is ready (its command found, its working directory there, its variables set), and the model
 * can be reached — a login or key for the provider, and the provider's address accepting a
 * connection within `MODEL_REACH_MS`. Starts nothing and sends nothing.
 */
import { providerRoute } from '../../config/compile/provider-route.js';
import { checkReadiness, type CommandLocation } from '../../config/registry/readiness.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { RegistryEntry } from '../../config/registry/types.js';
import type { Snapshot } from '../../config/snapshot/types.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { addressOf, tcpReach, type Reach } from '../../foundation/net/tcp-reach.js';
import type { Environment } from '../../foundation/paths/directories.js';
import {
  authJsonExists,
  baseCodexHome,
  modelAccess,
  modelAccessDiagnostics,
  type ModelAccess,
} from '../profile/doctor-model.js';

/** How long the provider's address has to accept a connection (ms). */
export const MODEL_REACH_MS = 1500;

export interface LaunchCheckInput {
  readonly snapshot: Snapshot;
  readonly env: Environment;
  readonly home: string;
  readonly credentials: CredentialSource;
  /** codex-base.toml, for the model diagnostics. */
  readonly baseFile: string;
  /** The registry directory, named by the server diagnostics. */
  readonly registryDir: string;
  /** The reach check (tests may pass another address check; the default opens a connection). */
  readonly reach?: (host: string, port: number) => Promise<Reach>;
}

/** Readiness errors of every server the snapshot holds. */
async function serverChecks(input: LaunchCheckInput): Promise<Diagnostic[]> {
  const commandCache = new Map<string, Promise<CommandLocation>>();
  const ctx = { env: input.env, home: input.home, credentials: input.credentials, commandCache };
  const results = await Promise.all(
    Object.values(input.snapshot.servers).map((definition) => {
      const entry: RegistryEntry = { definition, file: input.registryDir, replaces: [] };
      return checkReadiness(entry, ctx);
    }),
  );
  return results.flatMap((r) => r.diagnostics.filter((d) => d.severity === 'error'));
}

/** The model's address a session will use, given how Codex will authenticate. */
function modelUrl(base: Snapshot['base'], access: ModelAccess): string | undefined {
  const route = providerRoute(base);
  if (route.kind === 'custom') return route.upstream;
  if (route.kind === 'openai') return access.openai_api_key ? route.api : route.chatgpt;
  return undefined;
}

/** A login that lives outside auth.json (Codex's keyring store) cannot be seen from here. */
function loginElsewhere(base: Snapshot['base']): boolean {
  const store = base.cli_auth_credentials_store;
  return typeof store === 'string' && store !== 'file';
}

async function modelChecks(input: LaunchCheckInput): Promise<Diagnostic[]> {
  const base = input.snapshot.base;
  const access = modelAccess(
    base,
    input.credentials,
    authJsonExists(baseCodexHome(input.env, input.home)),
  );
  const out: Diagnostic[] = [];
  for (const found of modelAccessDiagnostics(access, input.baseFile)) {
    if (found.code !== 'model-auth-missing') out.push(found);
    else if (loginElsewhere(base)) out.push(found);
    else {
      out.push(
        diagnostic({
          code: 'model-login-required',
          message: `${found.message}; the session would only retry, so it does not start`,
        }),
      );
    }
  }
  if (out.some((d) => d.severity === 'error')) return out;
  const url = modelUrl(base, access);
  const address = url !== undefined ? addressOf(url) : undefined;
  if (address === undefined) return out;
  const reach = input.reach ?? ((h, p) => tcpReach(h, p, MODEL_REACH_MS));
  const reached = await reach(address.host, address.port);
  if (!reached.ok) {
    out.push(
      diagnostic({
        code: 'model-provider-unreachable',
        message: `the model provider '${access.provider}' at ${address.host}:${String(address.port)} cannot be reached (${reached.reason}); check the network, or base_url in codex-base.toml — for an offline try, \`codex-mmo scripted-model\` prints the lines`,
        file: input.baseFile,
      }),
    );
  }
  return out;
}

/**
 * Every launch check (the server and model checks run at once), leaving out what `said`
 * already holds, so each failure is said once.
 */
export async function launchChecks(
  input: LaunchCheckInput,
  said: readonly Diagnostic[] = [],
): Promise<Diagnostic[]> {
  const [servers, model] = await Promise.all([serverChecks(input), modelChecks(input)]);
  const known = new Set(said.map((d) => `${d.code}\n${d.message}`));
  return [...servers, ...model].filter((d) => !known.has(`${d.code}\n${d.message}`));
}
