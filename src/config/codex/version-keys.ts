/**
 * Keeps a rendered Codex configuration within what one Codex version accepts (pure): finds the
 * version-gated keys (the version table's `versionTopLevelKeys` and `mcpServerKeys`) a version
 * rejects, and removes them, so `--strict-config` stays clean on every supported version.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import {
  acceptsMcpServerKey,
  acceptsTopLevelKey,
  versionGatedMcpServerKeys,
  type CodexVersionFacts,
} from './codex-versions.js';

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The version-gated keys of `config` (a `config.toml` or role file) that this version rejects, as
 * key paths: `['mcp_optional_startup_grace_ms']`, `['mcp_servers', 'a', 'startup_readiness']`.
 * Keys no supported version knows are not reported here: Codex's own check finds those.
 */
export function unacceptedKeys(config: TomlTable, facts: CodexVersionFacts): string[][] {
  const out: string[][] = [];
  for (const key of Object.keys(config)) {
    if (!acceptsTopLevelKey(facts, key)) out.push([key]);
  }
  const servers = config.mcp_servers;
  if (isTable(servers)) {
    const gated = versionGatedMcpServerKeys();
    for (const [name, table] of Object.entries(servers)) {
      if (!isTable(table)) continue;
      for (const key of Object.keys(table)) {
        if (gated.includes(key) && !acceptsMcpServerKey(facts, key)) {
          out.push(['mcp_servers', name, key]);
        }
      }
    }
  }
  return out;
}

/** A copy of `config` without the version-gated keys this version rejects. */
export function withAcceptedKeys(config: TomlTable, facts: CodexVersionFacts): TomlTable {
  const drop = unacceptedKeys(config, facts);
  if (drop.length === 0) return config;
  const out: TomlTable = { ...config };
  const servers: TomlTable = isTable(config.mcp_servers) ? { ...config.mcp_servers } : {};
  for (const path of drop) {
    const [first, name, key] = path;
    if (path.length === 1 && first !== undefined) {
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a key path from the table
      delete out[first];
    } else if (name !== undefined && key !== undefined && isTable(servers[name])) {
      const table: TomlTable = { ...servers[name] };
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a key path from the table
      delete table[key];
      servers[name] = table;
    }
  }
  if (isTable(config.mcp_servers)) out.mcp_servers = servers;
  return out;
}

/**
 * `codex-key-unsupported` (warning) for each version-gated key of codex-base.toml that this Codex
 * version rejects: rendering leaves it out for that version, so the setting has no effect there.
 */
export function baseKeyDiagnostics(
  base: TomlTable,
  file: string,
  facts: CodexVersionFacts,
): Diagnostic[] {
  return unacceptedKeys(base, facts).map((path) =>
    diagnostic({
      severity: 'warning',
      code: 'codex-key-unsupported',
      message: `\`${path.join('.')}\` in codex-base.toml is not accepted by Codex ${facts.series} (see docs/codex-versions.md), so it is left out of the configuration rendered for it and has no effect; remove it or use a Codex version that accepts it`,
      file,
      path: path.join('.'),
    }),
  );
}
