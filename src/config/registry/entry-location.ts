/**
 * Where a key of a registry entry is written (file, line, column, key path), so that diagnostics
 * found after loading (readiness, probes) point at the fragment line that defines the server.
 */
import { formatKeyPath, type KeyPath } from '../../foundation/toml/key-positions.js';
import type { RegistryEntry } from './types.js';

export interface EntryLocation {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  readonly path: string;
}

/** Location of `key` (below `tool_mcp_servers.ID`), falling back to the server table itself. */
export function entryLocation(entry: RegistryEntry, key: KeyPath = []): EntryLocation {
  const full: KeyPath = ['tool_mcp_servers', entry.definition.id, ...key];
  const position = entry.positions?.lookup(full);
  const line = position?.line ?? entry.line;
  const column = position?.column ?? entry.column;
  return {
    file: entry.file,
    ...(line !== undefined ? { line } : {}),
    ...(column !== undefined ? { column } : {}),
    path: formatKeyPath(full),
  };
}
