/**
 * The codex-mmo version, reported by `--version` and in the MCP handshake of `mmo_mesh`.
 * Kept equal to the `version` of package.json (a test checks it).
 */
export const VERSION = '0.1.0';
