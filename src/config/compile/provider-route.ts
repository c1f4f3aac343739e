/**
 * Where a session's model requests really go, and how a rendered Codex home is pointed at the
 * model wire instead (pure). The operator's `codex-base.toml` names the provider: a custom
 * `[model_providers.X]` with a Responses `base_url` is fronted by rewriting that `base_url`; the
 * built-in `openai` provider (API key or ChatGPT login, `openai_base_url` honoured) is replaced
 * by an equivalent custom provider with `requires_openai_auth`, so Codex sends the same
 * credentials over HTTP to the wire. Websockets and request compression are switched off, since
 * the wire must read each request. Providers it cannot front are reported with the reason.
 */
import type { TomlTable } from '../../foundation/toml/parse-toml.js';

/** Codex's default OpenAI API base URL (API-key auth). */
export const OPENAI_API_BASE = 'https://api.openai.com/v1';
/** Codex's default base URL for ChatGPT-login auth. */
export const CHATGPT_BACKEND_BASE = 'https://chatgpt.com/backend-api/codex';
/** The provider id the wire uses in place of the built-in `openai` provider. */
export const WIRE_OPENAI_PROVIDER = 'codex_mmo_openai';
/** The header Codex sends with ChatGPT-login auth (measured on 0.149 and 0.171). */
export const CHATGPT_ACCOUNT_HEADER = 'chatgpt-account-id';
/** Built-in providers of Codex that run a local model server the wire does not know. */
const LOCAL_BUILT_INS = new Set(['oss', 'ollama', 'lmstudio']);

export type ProviderRoute =
  | {
      readonly kind: 'custom';
      readonly provider: string;
      /** The operator's `base_url`. */
      readonly upstream: string;
    }
  | {
      readonly kind: 'openai';
      /** Upstream for API-key auth (`openai_base_url`, else the OpenAI API). */
      readonly api: string;
      /** Upstream for ChatGPT-login auth (`openai_base_url`, else the ChatGPT backend). */
      readonly chatgpt: string;
    }
  | { readonly kind: 'unfrontable'; readonly provider: string; readonly reason: string };

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The route of the provider the base settings select (Codex's default: `openai`). */
export function providerRoute(base: TomlTable): ProviderRoute {
  const provider = typeof base.model_provider === 'string' ? base.model_provider : 'openai';
  if (provider === 'openai') {
    const override = httpUrl(base.openai_base_url);
    return {
      kind: 'openai',
      api: override ?? OPENAI_API_BASE,
      chatgpt: override ?? CHATGPT_BACKEND_BASE,
    };
  }
  const unfrontable = (reason: string): ProviderRoute => ({
    kind: 'unfrontable',
    provider,
    reason,
  });
  if (LOCAL_BUILT_INS.has(provider)) {
    return unfrontable(
      `\`${provider}\` is a built-in local provider whose address codex-mmo does not know; declare it as a [model_providers] table with base_url`,
    );
  }
  const providers = isTable(base.model_providers) ? base.model_providers : {};
  const table = providers[provider];
  if (!isTable(table)) {
    return unfrontable(`model_provider \`${provider}\` has no [model_providers.${provider}] table`);
  }
  if (table.wire_api !== undefined && table.wire_api !== 'responses') {
    return unfrontable(
      `provider \`${provider}\` does not use the Responses API (wire_api = ${JSON.stringify(table.wire_api)})`,
    );
  }
  if (table.aws !== undefined) {
    return unfrontable(
      `provider \`${provider}\` signs each request (aws), so a request cannot be narrowed on its way`,
    );
  }
  const upstream = httpUrl(table.base_url);
  if (upstream === undefined) {
    return unfrontable(`provider \`${provider}\` has no http(s) base_url`);
  }
  return { kind: 'custom', provider, upstream };
}

/**
 * Whether Codex needs a copy of the base home's `auth.json` to reach the model: the built-in
 * `openai` provider (API key or ChatGPT login), a custom one with `requires_openai_auth`, and any
 * provider the wire cannot front (whose needs codex-mmo does not know).
 */
export function needsAuthFile(base: TomlTable): boolean {
  const route = providerRoute(base);
  if (route.kind !== 'custom') return true;
  const providers = isTable(base.model_providers) ? base.model_providers : {};
  const table = providers[route.provider];
  return isTable(table) && table.requires_openai_auth === true;
}

/** The upstream base URL of one request: ChatGPT-login requests carry the account header. */
export function upstreamOf(
  route: ProviderRoute,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string | undefined {
  switch (route.kind) {
    case 'custom':
      return route.upstream;
    case 'openai':
      return headers[CHATGPT_ACCOUNT_HEADER] !== undefined ? route.chatgpt : route.api;
    case 'unfrontable':
      return undefined;
  }
}

/**
 * The header with which a Codex process proves to the wire that it is the process its path names
 * (the path is in its `config.toml`; the value only in its environment, as `WIRE_TOKEN_ENV`).
 */
export const WIRE_TOKEN_HEADER = 'x-codex-mmo-wire';
export const WIRE_TOKEN_ENV = 'CODEX_MMO_WIRE_TOKEN';

function withWireToken(headers: unknown): TomlTable {
  return { ...(isTable(headers) ? headers : {}), [WIRE_TOKEN_HEADER]: WIRE_TOKEN_ENV };
}

/**
 * A rendered `config.toml` table pointed at the wire's `wireBase` for the route, its requests
 * carrying the process's wire token (`env_http_headers`). Returns the
 * table unchanged for an unfrontable route.
 */
export function pointAtWire(table: TomlTable, route: ProviderRoute, wireBase: string): TomlTable {
  if (route.kind === 'unfrontable') return table;
  const providers = isTable(table.model_providers) ? { ...table.model_providers } : {};
  const features = isTable(table.features) ? table.features : {};
  const out: TomlTable = { ...table, features: { ...features, enable_request_compression: false } };
  if (route.kind === 'custom') {
    const own = providers[route.provider];
    providers[route.provider] = {
      ...(isTable(own) ? own : {}),
      base_url: wireBase,
      supports_websockets: false,
      env_http_headers: withWireToken(isTable(own) ? own.env_http_headers : undefined),
    };
  } else {
    delete out.openai_base_url;
    out.model_provider = WIRE_OPENAI_PROVIDER;
    providers[WIRE_OPENAI_PROVIDER] = {
      name: 'OpenAI',
      base_url: wireBase,
      wire_api: 'responses',
      requires_openai_auth: true,
      supports_websockets: false,
      env_http_headers: withWireToken(undefined),
    };
  }
  out.model_providers = providers;
  return out;
}
