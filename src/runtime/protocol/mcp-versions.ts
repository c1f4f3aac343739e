/**
 * The MCP protocol revisions codex-mmo speaks, oldest first, and what differs between them: the
 * handshake (a 2025-era `initialize` session, or the 2026-07-28 `server/discover` with the
 * protocol version, client info and capabilities in `_meta` on every request and no session),
 * and how a server it runs answers a client's `protocolVersion`.
 */

/** How a client opens a revision: a session (`initialize`) or per-request (`server/discover`). */
export type McpHandshake = 'initialize' | 'discover';

export interface McpRevision {
  readonly version: string;
  readonly handshake: McpHandshake;
}

/** Every revision, oldest first. */
export const MCP_REVISIONS: readonly McpRevision[] = [
  { version: '2024-10-07', handshake: 'initialize' },
  { version: '2024-11-05', handshake: 'initialize' },
  { version: '2025-03-26', handshake: 'initialize' },
  { version: '2025-06-18', handshake: 'initialize' },
  { version: '2025-11-25', handshake: 'initialize' },
  { version: '2026-07-28', handshake: 'discover' },
];

/** The session (`initialize`) revisions, oldest first: what Codex and our own servers speak. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = MCP_REVISIONS.filter(
  (r) => r.handshake === 'initialize',
).map((r) => r.version);

/** The per-request (`server/discover`) revisions, oldest first. */
export const MCP_DISCOVER_VERSIONS: readonly string[] = MCP_REVISIONS.filter(
  (r) => r.handshake === 'discover',
).map((r) => r.version);

/** The newest session revision. */
export const NEWEST_SESSION_VERSION = MCP_PROTOCOL_VERSIONS.at(-1) ?? '2025-11-25';

/** The newest per-request revision, the one an upstream client asks for in `server/discover`. */
export const NEWEST_DISCOVER_VERSION = MCP_DISCOVER_VERSIONS.at(-1) ?? '2026-07-28';

/** `_meta` keys of the per-request envelope. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The JSON-RPC error a per-request server answers a revision it does not speak with. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The handshake of `version`, or undefined for a revision codex-mmo does not know. */
export function handshakeOf(version: string): McpHandshake | undefined {
  return MCP_REVISIONS.find((r) => r.version === version)?.handshake;
}

/** The position of `version` among every revision (-1: unknown), to compare revisions. */
export function revisionRank(version: unknown): number {
  return typeof version === 'string' ? MCP_REVISIONS.findIndex((r) => r.version === version) : -1;
}

/** The revision a server of ours answers to the one a client asked for (pure). */
export function negotiatedProtocolVersion(requested: unknown): string {
  return typeof requested === 'string' && MCP_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : NEWEST_SESSION_VERSION;
}
