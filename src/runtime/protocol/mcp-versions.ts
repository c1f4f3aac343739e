/**
 * The MCP protocol revisions codex-mmo speaks, oldest first, and how a server it runs answers a
 * client's `protocolVersion`: the same revision when it knows it, else its newest.
 */

/** MCP protocol revisions, oldest first. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  '2024-10-07',
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25',
];

/** The revision a server of ours answers to the one a client asked for (pure). */
export function negotiatedProtocolVersion(requested: unknown): string {
  return typeof requested === 'string' && MCP_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : (MCP_PROTOCOL_VERSIONS.at(-1) ?? '2025-11-25');
}
