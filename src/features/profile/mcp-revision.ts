/**
 * `profile doctor`'s word on the MCP revision the detected Codex will speak to a session's
 * routes: 2025 `initialize` sessions, or — with its `mcp_2026_07_28` feature on in
 * codex-base.toml's `[features]` — 2026-07-28 (`server/discover` first over HTTP), which the
 * gateway answers and translates to each server's own session. Pure.
 */
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';

/** Whether codex-base.toml turns Codex's MCP 2026-07-28 client on. */
export function mcp2026On(base: TomlTable, facts: CodexVersionFacts): boolean {
  const features = base.features;
  const set =
    typeof features === 'object' && features !== null && !Array.isArray(features)
      ? (features as Record<string, unknown>)[facts.mcp2026.feature]
      : undefined;
  return typeof set === 'boolean' ? set : facts.mcp2026.onByDefault;
}

/** The info diagnostic `mcp-revision` for the detected Codex (`version`: as detected). */
export function mcpRevisionDiagnostic(
  base: TomlTable,
  baseFile: string,
  facts: CodexVersionFacts,
  version: string | undefined,
): Diagnostic {
  const codex = `Codex ${version ?? facts.measured}`;
  const feature = facts.mcp2026.feature;
  return diagnostic({
    severity: 'info',
    code: 'mcp-revision',
    message: mcp2026On(base, facts)
      ? `${codex} speaks MCP 2026-07-28 to the session's servers (\`[features] ${feature} = true\` in ${baseFile}; ${facts.mcp2026.stage}): \`server/discover\` first and no session over HTTP; the gateway answers it and carries each request to the server in the server's own revision`
      : `${codex} speaks MCP 2025 (\`initialize\` sessions) to the session's servers; \`[features] ${feature} = true\` in ${baseFile} would turn on its 2026-07-28 client (${facts.mcp2026.stage}), which sessions also serve`,
  });
}

/** `mcp-revision` when a Codex was found (none otherwise: what it speaks is not known). */
export function mcpRevisionDiagnostics(
  base: { readonly base: TomlTable; readonly file: string },
  facts: CodexVersionFacts,
  codex: { readonly found: boolean; readonly version?: string },
): Diagnostic[] {
  return codex.found ? [mcpRevisionDiagnostic(base.base, base.file, facts, codex.version)] : [];
}
