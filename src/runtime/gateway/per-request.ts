/**
 * The 2026-07-28 (per-request) revision toward Codex, as pure functions: which POST speaks it,
 * whether its `Mcp-Method`/`Mcp-Name` headers agree with its body, the JSON-RPC errors it is
 * refused with (always carrying the request's id), an answer as a 2026 client takes it (its
 * `resultType` and cache hints), and the `server/discover` answer made from the route's
 * `initialize` result.
 */
import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MCP_DISCOVER_VERSIONS,
  UNSUPPORTED_PROTOCOL_VERSION,
  handshakeOf,
} from '../protocol/mcp-versions.js';
import { NAME_FIELD, decodeHeaderValue } from '../protocol/mcp-headers.js';
import { isObject } from './relay-messages.js';

/** The 2026-07-28 `HeaderMismatch` error: the headers disagree with the body. */
export const HEADER_MISMATCH = -32020;

/** JSON-RPC `Invalid Request`: not one JSON-RPC request. */
const INVALID_REQUEST = -32600;

/** JSON-RPC `Invalid params`: here, a `_meta` envelope without what 2026-07-28 requires. */
const INVALID_PARAMS = -32602;

/** JSON-RPC `Method not found`. */
const METHOD_NOT_FOUND = -32601;

/** Methods of the session revisions that 2026-07-28 removed: not found, whatever the rules say. */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * The HTTP status of a per-request answer (pure): 404 for a method not found, 400 for a request
 * refused as malformed (bad params, header mismatch, undeclared capability, unknown revision),
 * 200 for any other answer.
 */
export function perRequestStatus(answer: Record<string, unknown>): number {
  const error = answer.error;
  const code = isObject(error) ? error.code : undefined;
  if (code === METHOD_NOT_FOUND) return 404;
  if (code === INVALID_REQUEST || code === INVALID_PARAMS) return 400;
  if (code === HEADER_MISMATCH || code === -32021 || code === UNSUPPORTED_PROTOCOL_VERSION) {
    return 400;
  }
  return 200;
}

type Id = string | number;
type Headers = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The id of a JSON-RPC body, when it has a usable one. */
export function bodyId(body: unknown): Id | undefined {
  if (!isObject(body)) return undefined;
  const id = body.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The revision a body's `_meta` envelope names, if any. */
export function envelopeVersion(body: unknown): string | undefined {
  if (!isObject(body) || !isObject(body.params) || !isObject(body.params._meta)) return undefined;
  const version = body.params._meta[META_PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
}

/** Whether a session-less POST speaks a per-request revision (by header or envelope). */
export function isPerRequest(headers: Headers, body: unknown): boolean {
  const version = header(headers, 'mcp-protocol-version') ?? envelopeVersion(body);
  return version !== undefined && handshakeOf(version) !== 'initialize';
}

/** A JSON-RPC error answering the request `id` (null only when the body had no id). */
export function rpcError(
  id: Id | undefined,
  code: number,
  message: string,
  data?: unknown,
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id: id ?? null,
    error: { code, message, ...(data !== undefined ? { data } : {}) },
  };
}

/**
 * Why a per-request POST is refused before any rule sees it, or undefined: an unknown revision,
 * a header revision that differs from the envelope's, a `Mcp-Method` other than the body's
 * method, or a `Mcp-Name` missing or other than the name the body carries.
 */
export function perRequestRefusal(
  headers: Headers,
  body: unknown,
): { code: number; message: string; data?: unknown } | undefined {
  if (!isObject(body) || typeof body.method !== 'string') {
    return { code: INVALID_REQUEST, message: 'send one JSON-RPC message per request' };
  }
  // a notification needs neither the standard headers nor a whole envelope (it has no answer)
  if (!('id' in body)) return undefined;
  const inHeader = header(headers, 'mcp-protocol-version');
  const inBody = envelopeVersion(body);
  const version = inHeader ?? inBody;
  if (version === undefined || !MCP_DISCOVER_VERSIONS.includes(version)) {
    return {
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message: `codex-mmo gateway: unsupported protocol version '${String(version)}'`,
      data: { supported: [...MCP_DISCOVER_VERSIONS], requested: version },
    };
  }
  if (inHeader !== undefined && inBody !== undefined && inHeader !== inBody) {
    return {
      code: HEADER_MISMATCH,
      message: `codex-mmo gateway refused this request [header-mismatch]: MCP-Protocol-Version '${inHeader}' differs from the _meta envelope's '${inBody}'`,
    };
  }
  const meta = isObject(body.params) && isObject(body.params._meta) ? body.params._meta : {};
  const info = meta[META_CLIENT_INFO];
  if (
    inBody === undefined ||
    !isObject(meta[META_CLIENT_CAPABILITIES]) ||
    (info !== undefined && !isObject(info))
  ) {
    return {
      code: INVALID_PARAMS,
      message: `codex-mmo gateway refused this request [invalid-envelope]: MCP ${version} requires params._meta to carry '${META_PROTOCOL_VERSION}' and '${META_CLIENT_CAPABILITIES}'`,
    };
  }
  if (REMOVED_METHODS.has(body.method)) {
    return {
      code: METHOD_NOT_FOUND,
      message: `'${body.method}' is not a method of MCP ${version}`,
    };
  }
  const method = header(headers, 'mcp-method');
  if (method !== body.method) {
    return {
      code: HEADER_MISMATCH,
      message: `codex-mmo gateway refused this request [header-mismatch]: the Mcp-Method header does not match the request's method`,
    };
  }
  const field = Object.hasOwn(NAME_FIELD, body.method) ? NAME_FIELD[body.method] : undefined;
  const params = isObject(body.params) ? body.params : {};
  const named = field === undefined ? undefined : params[field];
  const sent = header(headers, 'mcp-name');
  const expected = typeof named === 'string' ? named : undefined;
  const got = sent === undefined ? undefined : decodeHeaderValue(sent);
  if (got !== expected) {
    return {
      code: HEADER_MISMATCH,
      message: `codex-mmo gateway refused this request [header-mismatch]: the Mcp-Name header does not match the name the request carries`,
    };
  }
  return undefined;
}

/** Results a 2026 client may cache, which carry `ttlMs` and `cacheScope`. */
const CACHEABLE: ReadonlySet<string> = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/**
 * An answer as a 2026 client takes it (pure): a result without `resultType` is `complete`, and a
 * cacheable one without a cache hint is not cached (`ttlMs` 0, private), as a server of a
 * session revision meant it.
 */
export function perRequestAnswer(
  method: string,
  answer: Record<string, unknown>,
): Record<string, unknown> {
  const result = answer.result;
  if (!isObject(result)) return answer;
  const hint = CACHEABLE.has(method) ? { ttlMs: 0, cacheScope: 'private' } : {};
  return { ...answer, result: { resultType: 'complete', ...hint, ...result } };
}

/** The `initialize` params a gateway-opened session sends for a per-request client. */
export function sessionInitParams(body: unknown, protocolVersion: string): Record<string, unknown> {
  const meta =
    isObject(body) && isObject(body.params) && isObject(body.params._meta) ? body.params._meta : {};
  const info = meta[META_CLIENT_INFO];
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  return {
    protocolVersion,
    capabilities: isObject(capabilities) ? capabilities : {},
    clientInfo: isObject(info) ? info : { name: 'codex-mmo-gateway', version: '0' },
  };
}

/** The capabilities a server may tell a per-request client of: what the gateway serves. */
const SERVED_CAPABILITIES = ['tools', 'resources', 'prompts'] as const;

/**
 * Capabilities as the gateway keeps them toward a per-request client (pure): only tools,
 * resources and prompts, each without `listChanged` or `subscribe` — the gateway refuses
 * `subscriptions/listen`, resource subscriptions, completion, logging and tasks, so it does not
 * offer them either.
 */
function perRequestCapabilities(capabilities: unknown): Record<string, unknown> {
  if (!isObject(capabilities)) return {};
  const out: Record<string, unknown> = {};
  for (const key of SERVED_CAPABILITIES) {
    if (isObject(capabilities[key])) out[key] = {};
  }
  return out;
}

/**
 * The `server/discover` result of a server, from its (pinned) `initialize` result: the
 * per-request revisions, its capabilities (less the notification streams the gateway refuses)
 * and instructions, its serverInfo in `_meta`, and a cache hint of none (`ttlMs` 0, private:
 * what a server answers may change with its pin).
 */
export function discoverResult(init: Record<string, unknown>): Record<string, unknown> {
  const serverInfo = isObject(init.serverInfo)
    ? init.serverInfo
    : { name: 'unknown', version: '0' };
  return {
    resultType: 'complete',
    supportedVersions: [...MCP_DISCOVER_VERSIONS],
    capabilities: perRequestCapabilities(init.capabilities),
    ...(typeof init.instructions === 'string' ? { instructions: init.instructions } : {}),
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [META_SERVER_INFO]: serverInfo },
  };
}
