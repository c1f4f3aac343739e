/**
 * Talks to a real server in its own MCP revision while its user (the probe, a lease, the relay)
 * opens with `initialize`. A user of a session revision goes `initialize` first; a server that
 * answers it with "unsupported protocol version" naming a per-request revision (2026-07-28) is
 * asked `server/discover` instead. A user of a per-request revision (the gateway for a 2026
 * client) goes `server/discover` first and falls back to a session of the newest session
 * revision when the server does not answer it. Toward a per-request server every request carries
 * the `_meta` envelope (the user's own envelope keys, when it sends them, under the agreed
 * protocol version), `notifications/initialized` is not sent, and an `input_required` answer
 * reaches only a per-request user (a session user gets an error naming both revisions). Toward a
 * session server the envelope keys are removed.
 */
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MCP_DISCOVER_VERSIONS,
  NEWEST_DISCOVER_VERSION,
  NEWEST_SESSION_VERSION,
  UNSUPPORTED_PROTOCOL_VERSION,
  handshakeOf,
  negotiatedProtocolVersion,
} from '../protocol/mcp-versions.js';
import { listedParamHeaders } from '../protocol/mcp-headers.js';
import type { ParamHeaderBook } from './request-headers.js';

/** The JSON-RPC error code of an answer a session client cannot take. */
export const REVISION_MISMATCH_CODE = -32000;

const DISCOVER_ID = 'codex-mmo-discover';

/** Most tools whose `x-mcp-header` declarations are kept for one server. */
const MAX_BOOK = 4096;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether an `initialize` error says the server speaks only revisions opened with
 * `server/discover` that codex-mmo knows (its `data.supported`, when given, names one).
 */
export function wantsDiscover(error: unknown): boolean {
  if (!isObject(error) || error.code !== UNSUPPORTED_PROTOCOL_VERSION) return false;
  const supported = isObject(error.data) ? error.data.supported : undefined;
  if (!Array.isArray(supported)) return true;
  return supported.some((v) => typeof v === 'string' && handshakeOf(v) === 'discover');
}

/** `_meta` keys of the per-request envelope, which a session server is never sent. */
export const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  META_PROTOCOL_VERSION,
  META_CLIENT_INFO,
  META_CLIENT_CAPABILITIES,
  'io.modelcontextprotocol/logLevel',
]);

/** Whether `version` is a per-request revision codex-mmo speaks. */
function perRequestVersion(version: unknown): boolean {
  return typeof version === 'string' && handshakeOf(version) === 'discover';
}

/** A message as a session carries it: the envelope keys removed from its `_meta` (pure). */
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

/**
 * The `initialize` result a user gets for a `server/discover` answer (pure): the revision
 * discovered for a per-request user, else the session revision it asked for.
 */
export function initializeFromDiscover(
  discovered: Record<string, unknown>,
  requested: unknown,
  version: string = NEWEST_DISCOVER_VERSION,
): Record<string, unknown> {
  const meta = isObject(discovered._meta) ? discovered._meta : {};
  const info = isObject(discovered.serverInfo) ? discovered.serverInfo : meta[META_SERVER_INFO];
  return {
    protocolVersion: perRequestVersion(requested) ? version : negotiatedProtocolVersion(requested),
    capabilities: isObject(discovered.capabilities) ? discovered.capabilities : {},
    serverInfo: isObject(info) ? info : { name: '', version: '' },
    ...(typeof discovered.instructions === 'string'
      ? { instructions: discovered.instructions }
      : {}),
  };
}

export class RevisionTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The revision spoken with the server, once its handshake is answered. */
  revision: string | undefined;
  /** The envelope of every request in a per-request revision. */
  private envelope: Record<string, unknown> | undefined;
  /** The user's `initialize` in flight: its id and params. */
  private opening: { readonly id: string | number; readonly params: unknown } | undefined;
  /** The server's answer to that `initialize`, kept for when `server/discover` fails too. */
  private refused: JSONRPCMessage | undefined;
  /** The revision the user asked for in its `initialize`. */
  private clientVersion = '';
  /** Set once a per-request user's `server/discover` failed and a session was asked for. */
  private fellBack = false;

  /** Tool names of `tools/list` requests in flight, to learn their `x-mcp-header` declarations. */
  private readonly lists = new Set<string | number>();

  constructor(
    private readonly inner: Transport,
    /** Filled with each listed tool's `x-mcp-header` declarations, when given. */
    private readonly book?: ParamHeaderBook,
  ) {
    inner.onmessage = (message) => {
      this.fromServer(message);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Whether the server is spoken to per request (no session). */
  get perRequest(): boolean {
    return this.envelope !== undefined;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    // a per-request server's version is the envelope's, whatever the session client agreed
    if (!this.perRequest) this.inner.setProtocolVersion?.(version);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Record<string, unknown>;
    const method = typeof m.method === 'string' ? m.method : undefined;
    const id = m.id as string | number | undefined;
    if (method === 'tools/list' && id !== undefined && this.book !== undefined) this.lists.add(id);
    if (method === 'initialize' && id !== undefined) {
      const params = isObject(m.params) ? m.params : {};
      this.clientVersion = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
      this.opening = { id, params };
      // a per-request server has no session to open again; a per-request user asks it first
      if (this.envelope !== undefined) return this.discover();
      if (perRequestVersion(params.protocolVersion)) {
        // a session server over HTTP may refuse the request outright: it gets a session instead
        return this.discover().catch(() => this.fallBack());
      }
      return this.inner.send(message, options);
    }
    if (this.envelope === undefined) {
      return this.inner.send(stripEnvelope(m) as JSONRPCMessage, options);
    }
    if (method === 'notifications/initialized') return Promise.resolve();
    if (method === undefined || id === undefined) return this.inner.send(message, options);
    const params = isObject(m.params) ? m.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    const keys = Object.entries(meta).filter(([key]) => ENVELOPE_KEYS.has(key));
    const rest = Object.entries(meta).filter(([key]) => !ENVELOPE_KEYS.has(key));
    // a per-request user's own envelope (its capabilities for this request) goes on as sent
    const envelope: Record<string, unknown> = {
      ...this.envelope,
      ...(perRequestVersion(this.clientVersion) ? Object.fromEntries(keys) : {}),
      [META_PROTOCOL_VERSION]: this.envelope[META_PROTOCOL_VERSION],
    };
    const out = {
      ...m,
      params: { ...params, _meta: { ...Object.fromEntries(rest), ...envelope } },
    };
    return this.inner.send(out as unknown as JSONRPCMessage, options);
  }

  /** Opens a session of the newest session revision after `server/discover` went unanswered. */
  private fallBack(): Promise<void> {
    const opening = this.opening;
    if (opening === undefined) return Promise.resolve();
    const params = isObject(opening.params) ? opening.params : {};
    this.fellBack = true;
    this.inner.setProtocolVersion?.(NEWEST_SESSION_VERSION);
    return this.inner.send({
      jsonrpc: '2.0',
      id: opening.id,
      method: 'initialize',
      params: { ...params, protocolVersion: NEWEST_SESSION_VERSION },
    });
  }

  /** Asks a per-request server `server/discover` for the user's `initialize`. */
  private discover(): Promise<void> {
    const params = isObject(this.opening?.params) ? this.opening.params : {};
    const envelope = {
      [META_PROTOCOL_VERSION]: NEWEST_DISCOVER_VERSION,
      [META_CLIENT_INFO]: isObject(params.clientInfo) ? params.clientInfo : {},
      [META_CLIENT_CAPABILITIES]: isObject(params.capabilities) ? params.capabilities : {},
    };
    this.inner.setProtocolVersion?.(NEWEST_DISCOVER_VERSION);
    return this.inner.send({
      jsonrpc: '2.0',
      id: DISCOVER_ID,
      method: 'server/discover',
      params: { _meta: envelope },
    });
  }

  private fromServer(message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    if ((typeof m.id === 'string' || typeof m.id === 'number') && this.lists.delete(m.id)) {
      this.learn(m.result);
    }
    const opening = this.opening;
    if (opening !== undefined && !('method' in m) && m.id === opening.id && !this.perRequest) {
      if (wantsDiscover(m.error) && !this.fellBack) {
        this.refused = message;
        void this.discover().catch((error: unknown) => {
          this.opened(undefined, error);
        });
        return;
      }
      this.opening = undefined;
      const result = isObject(m.result) ? m.result : undefined;
      if (typeof result?.protocolVersion === 'string') this.revision = result.protocolVersion;
      this.onmessage?.(message);
      return;
    }
    if (m.id === DISCOVER_ID && !('method' in m)) {
      const result = isObject(m.result) ? m.result : undefined;
      const first = perRequestVersion(this.clientVersion) && !this.fellBack && !this.perRequest;
      if (first && (result === undefined || discoveredVersion(result) === undefined)) {
        void this.fallBack().catch((error: unknown) => {
          this.opened(undefined, error);
        });
        return;
      }
      this.opened(result, m.error);
      return;
    }
    if (
      this.perRequest &&
      !perRequestVersion(this.clientVersion) &&
      isObject(m.result) &&
      m.result.resultType === 'input_required'
    ) {
      this.onmessage?.({
        jsonrpc: '2.0',
        id: m.id,
        error: {
          code: REVISION_MISMATCH_CODE,
          message: `the server speaks MCP ${this.revision ?? NEWEST_DISCOVER_VERSION} and asked for more input (input_required), which a client of MCP ${this.clientVersion || 'a session revision'} cannot give; codex-mmo refused the answer [upstream-revision-mismatch]`,
        },
      } as JSONRPCMessage);
      return;
    }
    this.onmessage?.(message);
  }

  /** Records the `x-mcp-header` declarations of the tools a `tools/list` answer lists. */
  private learn(result: unknown): void {
    const listed = listedParamHeaders(result);
    // a server that lists ever new tools does not grow the book without end
    if (this.book !== undefined && this.book.size + listed.length > MAX_BOOK) this.book.clear();
    for (const [tool, declared] of listed) this.book?.set(tool, declared);
  }

  /** The end of `server/discover`: the user's `initialize` is answered from it, or refused. */
  private opened(result: Record<string, unknown> | undefined, error: unknown): void {
    const opening = this.opening;
    this.opening = undefined;
    if (opening === undefined) return;
    const version = result === undefined ? undefined : discoveredVersion(result);
    if (result === undefined || version === undefined) {
      const why = isObject(error) && typeof error.message === 'string' ? `: ${error.message}` : '';
      const refused = this.refused as Record<string, unknown> | undefined;
      this.onmessage?.({
        jsonrpc: '2.0',
        id: opening.id,
        error: {
          code: UNSUPPORTED_PROTOCOL_VERSION,
          message: `the server refused MCP ${this.clientVersion} and server/discover of MCP ${NEWEST_DISCOVER_VERSION} failed${why}`,
          ...(isObject(refused?.error) && 'data' in refused.error
            ? { data: refused.error.data }
            : {}),
        },
      });
      return;
    }
    const params = isObject(opening.params) ? opening.params : {};
    this.revision = version;
    this.envelope = {
      [META_PROTOCOL_VERSION]: version,
      [META_CLIENT_INFO]: isObject(params.clientInfo) ? params.clientInfo : {},
      [META_CLIENT_CAPABILITIES]: isObject(params.capabilities) ? params.capabilities : {},
    };
    this.inner.setProtocolVersion?.(version);
    this.onmessage?.({
      jsonrpc: '2.0',
      id: opening.id,
      result: initializeFromDiscover(result, params.protocolVersion, version),
    });
  }
}

/** The newest per-request revision both a `server/discover` answer and codex-mmo speak. */
function discoveredVersion(result: Record<string, unknown>): string | undefined {
  const supported = Array.isArray(result.supportedVersions)
    ? (result.supportedVersions as unknown[])
    : [NEWEST_DISCOVER_VERSION];
  return MCP_DISCOVER_VERSIONS.findLast((v) => supported.includes(v));
}
