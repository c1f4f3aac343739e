/**
 * Talks to a real server in its own MCP revision while its user (the probe, a lease, the relay)
 * speaks a 2025 `initialize` session: the user's `initialize` goes first; a server that answers
 * it with "unsupported protocol version" naming a per-request revision (2026-07-28) is asked
 * `server/discover` instead, its answer becomes the user's `initialize` result, and from then on
 * every request carries the `_meta` envelope (protocol version, client info and capabilities),
 * `notifications/initialized` is not sent, and an `input_required` answer, which a session
 * client cannot take, is refused with an error naming both revisions.
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
  UNSUPPORTED_PROTOCOL_VERSION,
  handshakeOf,
  negotiatedProtocolVersion,
} from '../protocol/mcp-versions.js';

/** The JSON-RPC error code of an answer a session client cannot take. */
export const REVISION_MISMATCH_CODE = -32000;

const DISCOVER_ID = 'codex-mmo-discover';

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

/** The `initialize` result a session client gets for a `server/discover` answer (pure). */
export function initializeFromDiscover(
  discovered: Record<string, unknown>,
  requested: unknown,
): Record<string, unknown> {
  const meta = isObject(discovered._meta) ? discovered._meta : {};
  const info = isObject(discovered.serverInfo) ? discovered.serverInfo : meta[META_SERVER_INFO];
  return {
    protocolVersion: negotiatedProtocolVersion(requested),
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
  /** The session revision the user speaks (for messages). */
  private clientVersion = '';

  constructor(private readonly inner: Transport) {
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
    if (method === 'initialize' && id !== undefined) {
      const params = isObject(m.params) ? m.params : {};
      this.clientVersion = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
      if (this.envelope !== undefined) {
        // a per-request server has no session to open again: the user gets its answer again
        this.opening = { id, params };
        return this.discover();
      }
      this.opening = { id, params };
      return this.inner.send(message, options);
    }
    if (this.envelope === undefined) return this.inner.send(message, options);
    if (method === 'notifications/initialized') return Promise.resolve();
    if (method === undefined || id === undefined) return this.inner.send(message, options);
    const params = isObject(m.params) ? m.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    return this.inner.send(
      { ...m, params: { ...params, _meta: { ...meta, ...this.envelope } } } as JSONRPCMessage,
      options,
    );
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
    const opening = this.opening;
    if (opening !== undefined && !('method' in m) && m.id === opening.id && !this.perRequest) {
      if (wantsDiscover(m.error)) {
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
      this.opened(isObject(m.result) ? m.result : undefined, m.error);
      return;
    }
    if (this.perRequest && isObject(m.result) && m.result.resultType === 'input_required') {
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

  /** The end of `server/discover`: the user's `initialize` is answered from it, or refused. */
  private opened(result: Record<string, unknown> | undefined, error: unknown): void {
    const opening = this.opening;
    this.opening = undefined;
    if (opening === undefined) return;
    const supported = Array.isArray(result?.supportedVersions)
      ? (result.supportedVersions as unknown[])
      : [NEWEST_DISCOVER_VERSION];
    const version = MCP_DISCOVER_VERSIONS.findLast((v) => supported.includes(v));
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
      result: initializeFromDiscover(result, params.protocolVersion),
    });
  }
}
