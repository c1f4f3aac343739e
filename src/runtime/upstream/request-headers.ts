/**
 * The Streamable HTTP headers of a per-request (2026-07-28) revision, derived from each request's
 * own body: `MCP-Protocol-Version` from its `_meta` envelope, `Mcp-Method`, and `Mcp-Name` for the
 * methods that name a tool, prompt, resource or task (a value that is not plain printable ASCII
 * goes as `=?base64?…?=`), and a call's `Mcp-Param-*` headers its tool declares. A session-era
 * request gets none of them. A JSON-RPC error a server
 * answers a request with under HTTP 400 or 404 (its `id` the request's) is that request's answer.
 */
import {
  NAME_FIELD,
  encodeHeaderValue,
  paramHeaderValues,
  type ParamHeader,
} from '../protocol/mcp-headers.js';
import { META_PROTOCOL_VERSION, handshakeOf } from '../protocol/mcp-versions.js';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `x-mcp-header` declarations of a server's tools, as its `tools/list` answers gave them. */
export type ParamHeaderBook = Map<string, readonly ParamHeader[]>;

/**
 * The per-request headers of one JSON-RPC message body (empty for a session-era message), with
 * the `Mcp-Param-*` headers of a `tools/call` whose tool `book` knows.
 */
export function requestHeaders(body: unknown, book?: ParamHeaderBook): Record<string, string> {
  if (!isObject(body) || typeof body.method !== 'string' || !('id' in body)) return {};
  const params = isObject(body.params) ? body.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string' || handshakeOf(version) !== 'discover') return {};
  const headers: Record<string, string> = {
    'mcp-protocol-version': version,
    'mcp-method': body.method,
  };
  const field = Object.hasOwn(NAME_FIELD, body.method) ? NAME_FIELD[body.method] : undefined;
  const name = field !== undefined ? params[field] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  const declared = body.method === 'tools/call' && typeof name === 'string' ? book?.get(name) : [];
  return { ...headers, ...paramHeaderValues(declared ?? [], params.arguments) };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * `fetch` with the per-request headers added from each POST's body, and a JSON-RPC error answered
 * with HTTP 400 or 404 for the request's own id handed on as an HTTP 200 answer.
 */
export function perRequestFetch(inner: Fetch = fetch, book?: ParamHeaderBook): Fetch {
  return async (url, init) => {
    const body = init?.method === 'POST' && typeof init.body === 'string' ? parse(init.body) : {};
    const extra = requestHeaders(body, book);
    const headers = new Headers(init?.headers);
    for (const [key, value] of Object.entries(extra)) headers.set(key, value);
    const response = await inner(url, { ...init, headers });
    const id = isObject(body) ? body.id : undefined;
    if ((response.status !== 400 && response.status !== 404) || id === undefined || id === null) {
      return response;
    }
    const text = await response.text();
    const answer = parse(text);
    const isAnswer = isObject(answer) && isObject(answer.error) && answer.id === id;
    return new Response(text, {
      status: isAnswer ? 200 : response.status,
      statusText: isAnswer ? 'OK' : response.statusText,
      headers: isAnswer ? { 'content-type': 'application/json' } : response.headers,
    });
  };
}
