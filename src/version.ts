/** The codex-mmo version, reported by `--version` and in the MCP handshake of `mmo_mesh`. */
export const VERSION = '0.1.0';
