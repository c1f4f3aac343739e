/**
 * The 2026-07-28 (per-request) revision toward Codex, as pure functions: which POST speaks it,
 * whether its `Mcp-Method`/`Mcp-Name` headers agree with its body, the JSON-RPC errors it is
 * refused with (always carrying the request's id), the request as a 2025 session carries it (the
 * `_meta` envelope keys removed, the caller's `threadId` and the like kept), and the
 * `server/discover` answer made from a session's `initialize` result.
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
import { isObject } from './relay-messages.js';

/** `_meta` keys of the 2026 envelope, which a 2025 session never carries. */
export const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  META_PROTOCOL_VERSION,
  META_CLIENT_INFO,
  META_CLIENT_CAPABILITIES,
  'io.modelcontextprotocol/logLevel',
]);

/** Which field of `params` the `Mcp-Name` header mirrors, by method. */
export const NAME_FIELD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** JSON-RPC `Invalid Request`: the headers disagree with the body. */
export const HEADER_MISMATCH = -32600;

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

/** A header value as sent: `=?base64?…?=` decoded, anything else as is. */
function decodeHeader(value: string): string {
  const match = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return match?.[1] !== undefined ? Buffer.from(match[1], 'base64').toString('utf8') : value;
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
    return { code: HEADER_MISMATCH, message: 'send one JSON-RPC message per request' };
  }
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
  const got = sent === undefined ? undefined : decodeHeader(sent);
  if (got !== expected) {
    return {
      code: HEADER_MISMATCH,
      message: `codex-mmo gateway refused this request [header-mismatch]: the Mcp-Name header does not match the name the request carries`,
    };
  }
  return undefined;
}

/** A message as a 2025 session carries it: the 2026 envelope keys removed from its `_meta`. */
export function stripEnvelope(message: Record<string, unknown>): Record<string, unknown> {
  const params = message.params;
  if (!isObject(params) || !isObject(params._meta)) return message;
  const meta = Object.fromEntries(
    Object.entries(params._meta).filter(([key]) => !ENVELOPE_KEYS.has(key)),
  );
  const rest = Object.fromEntries(Object.entries(params).filter(([key]) => key !== '_meta'));
  return {
    ...message,
    params: Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest,
  };
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

/**
 * The `server/discover` result of a server, from its (pinned) `initialize` result: the
 * per-request revisions, its capabilities and instructions, its serverInfo in `_meta`, and a
 * cache hint of none (`ttlMs` 0, private: what a server answers may change with its pin).
 */
export function discoverResult(init: Record<string, unknown>): Record<string, unknown> {
  const serverInfo = isObject(init.serverInfo)
    ? init.serverInfo
    : { name: 'unknown', version: '0' };
  return {
    resultType: 'complete',
    supportedVersions: [...MCP_DISCOVER_VERSIONS],
    capabilities: isObject(init.capabilities) ? init.capabilities : {},
    ...(typeof init.instructions === 'string' ? { instructions: init.instructions } : {}),
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [META_SERVER_INFO]: serverInfo },
  };
}
