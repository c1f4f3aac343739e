/**
 * `codex-mmo tool-mcp export ID... --to codex|claude|server-json`: prints registry entries in
 * another client's format on stdout. Variables stay references; no credential value is read or
 * printed. What the format cannot hold is reported on stderr. Starts nothing.
 */
import { loadRegistry, type RegistryEntry } from '../../index.js';
import { lookupServer } from '../../config/registry/index.js';
import { suggest, type Diagnostic } from '../../foundation/diagnostics/index.js';
import {
  EXPORT_FORMATS,
  exportServers,
  type ExportFormat,
  type ExportResult,
} from '../../features/onboard/index.js';
import { UsageError, parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo tool-mcp export ID... --to codex|claude|server-json [--json]

Print registry entries in another client's format on stdout, to use a server outside codex-mmo
or hand it to someone: --to codex gives [mcp_servers.ID] tables for ~/.codex/config.toml,
--to claude a Claude Code {"mcpServers": ...} file (.mcp.json), --to server-json an MCP registry
server.json (one ID; an npx, uvx or docker run command with a version, or an HTTP URL).

Variables stay references: env_vars become \${NAME} in Claude Code files and isSecret variables
in server.json; no credential value is read or printed. A field the format cannot hold (cwd and
enabled_tools for Claude Code, the approval modes) is left out with an export-field-dropped
warning on stderr. Import the text elsewhere with \`codex-mmo tool-mcp import\`.

Options:
  --to FORMAT    codex, claude or server-json

JSON: {"ok", "format", "text", "diagnostics"}`;

const OPTIONS = { to: { type: 'string' } } as const;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, OPTIONS, { min: 1, max: 1000, names: ['ID'] });
  if (cmd.help) return printHelp(io, USAGE);
  const to = cmd.values.to;
  if (typeof to !== 'string' || !(EXPORT_FORMATS as readonly string[]).includes(to)) {
    const near = typeof to === 'string' ? suggest(to, EXPORT_FORMATS) : undefined;
    const hint = near !== undefined ? ` (did you mean '${near}'?)` : '';
    throw new UsageError(`--to takes one of ${EXPORT_FORMATS.join(', ')}${hint}`);
  }
  const format = to as ExportFormat;
  const ids = [...new Set(cmd.positionals)];
  if (format === 'server-json' && ids.length > 1) {
    throw new UsageError('--to server-json describes one server: give one ID');
  }
  const registry = await loadRegistry(cmd.dirs.configDir);
  const entries: RegistryEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const id of ids) {
    const found = lookupServer(registry, id);
    if (found.entry !== undefined) entries.push(found.entry);
    else diagnostics.push(...found.diagnostics);
  }
  const exported: ExportResult =
    diagnostics.length === 0 ? exportServers(entries, format) : { diagnostics: [] };
  diagnostics.push(...exported.diagnostics);
  const text = diagnostics.some((d) => d.severity === 'error') ? undefined : exported.text;
  const ok = text !== undefined;
  if (cmd.json) {
    printJson(io, { ok, format, ...(text !== undefined ? { text } : {}), diagnostics });
  } else {
    printDiagnostics(io, diagnostics);
    if (text !== undefined) io.stdout(text);
  }
  return ok ? EXIT_OK : EXIT_FAILURE;
}
