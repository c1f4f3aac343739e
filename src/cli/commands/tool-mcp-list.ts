/**
 * `codex-mmo tool-mcp list [--json]`: the operator registry as a table (or docs/design.md §7 JSON).
 * Reads fragments only; no credentials, no readiness checks, nothing launched. With `--check`
 * (`tool-mcp status`) it starts every server instead (`tool-mcp-check.ts`).
 */
import { formatTable } from '../../foundation/text/index.js';
import { basename } from 'node:path';

import { hasErrors, type RegistryEntry } from '../../index.js';
import { loadRegistryCached } from '../../config/registry/index.js';
import {
  parseCommand,
  printDiagnostics,
  printHelp,
  printJson,
  skipOptimisingCompilers,
} from '../common.js';
import { UsageError } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';
import { registryCache } from '../registry-cache.js';

const USAGE = `Usage: codex-mmo tool-mcp list [--json]
       codex-mmo tool-mcp list --check [--timeout SEC] [--json]      (alias: tool-mcp status)

List the Tool MCP servers of the operator registry (<config-dir>/tool-mcp.d/*.toml): transport,
command or URL, the operator's enabled tools, the default approval mode and the fragment that
defines each. Invalid definitions are left out and reported on stderr. Nothing is launched.

With --check, start every server exactly as \`codex-mmo tool-mcp probe\` does, four at a time,
and print one table: ID, TRANSPORT, STATUS (ok, failed: REASON, missing variable: NAMES, invalid
definition), TOOLS (how many it offers) and PIN (pinned, drift, not pinned, pinned (unchecked)
when it did not start). Their errors follow on stderr; credential values are never printed.
Exit status 1 when any server fails, lacks a variable, drifted from its pin or would make
\`tool-mcp probe\` fail.

Options:
  --check              start every server and report its live health
  --timeout SEC        with --check: wait at most SEC for each server (default: its
                       startup_timeout_sec, 30 when unset)

JSON with --check: {"ok", "servers": [{"id", "transport", "status", "reason"?,
"missing_variables", "tools_offered", "tools_enabled", "pin", "ok", "time_to_ready_ms"?,
"diagnostics"}], "diagnostics"}; status is ok, failed, missing-variable or invalid, pin is
match, drift, not-pinned or unchecked.`;

const OPTIONS = {
  check: { type: 'boolean', default: false },
  timeout: { type: 'string' },
} as const;

/** Command and arguments as one line, quoting arguments that need it. */
export function commandLine(command: string, args: readonly string[] = []): string {
  const quote = (word: string): string =>
    /^[A-Za-z0-9_@%+=:,./~-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
  return [command, ...args].map(quote).join(' ');
}

function toolsCell(tools: readonly string[]): string {
  const all = tools.join(',');
  if (all.length <= 48) return all;
  const shown: string[] = [];
  let length = 0;
  for (const tool of tools) {
    if (length + tool.length + 1 > 40 && shown.length > 0) break;
    shown.push(tool);
    length += tool.length + 1;
  }
  return `${shown.join(',')} +${tools.length - shown.length} more`;
}

function jsonOf(entry: RegistryEntry): Record<string, unknown> {
  const d = entry.definition;
  const target =
    d.transport === 'stdio' ? { command: d.command, args: d.args ?? [] } : { url: d.url };
  return {
    id: d.id,
    transport: d.transport,
    ...target,
    enabled_tools: d.enabled_tools,
    default_tools_approval_mode: d.default_tools_approval_mode,
    file: entry.file,
    replaces: entry.replaces,
  };
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, OPTIONS, { min: 0, max: 0 });
  if (cmd.help) return printHelp(io, USAGE);
  const timeout = cmd.values.timeout;
  if (typeof timeout === 'string' && cmd.values.check !== true) {
    throw new UsageError('--timeout goes with --check');
  }
  if (cmd.values.check === true) {
    const seconds = typeof timeout === 'string' ? Number(timeout) : undefined;
    if (seconds !== undefined && (!Number.isFinite(seconds) || seconds <= 0)) {
      throw new UsageError(
        `--timeout takes a positive number of seconds, not '${String(timeout)}'`,
      );
    }
    const { runCheck } = await import('./tool-mcp-check.js');
    return runCheck(io, cmd.dirs, cmd.json, seconds);
  }
  skipOptimisingCompilers();
  const registry = await loadRegistryCached(cmd.dirs.configDir, registryCache(cmd.dirs));
  const entries = [...registry.servers.values()];
  const failed = hasErrors(registry.diagnostics);
  if (cmd.json) {
    printJson(io, { servers: entries.map(jsonOf), diagnostics: registry.diagnostics });
    return failed ? EXIT_FAILURE : EXIT_OK;
  }
  // informational notes (replacements, a missing tool-mcp.d) are visible in the table itself
  printDiagnostics(
    io,
    registry.diagnostics.filter((d) => d.severity !== 'info'),
  );
  if (entries.length === 0) {
    io.stdout(
      registry.statuses.length === 0
        ? `No Tool MCP servers registered in ${cmd.dirs.configDir}/tool-mcp.d.\n`
        : 'No valid Tool MCP server definitions; see the errors above.\n',
    );
    return failed ? EXIT_FAILURE : EXIT_OK;
  }
  const rows = entries.map((entry) => {
    const d = entry.definition;
    const file =
      entry.replaces.length === 0
        ? basename(entry.file)
        : `${basename(entry.file)} (replaces ${entry.replaces.map((f) => basename(f)).join(', ')})`;
    return [
      d.id,
      d.transport,
      d.transport === 'stdio' ? commandLine(d.command, d.args) : d.url,
      toolsCell(d.enabled_tools),
      d.default_tools_approval_mode,
      file,
    ];
  });
  io.stdout(formatTable(['ID', 'TRANSPORT', 'COMMAND/URL', 'TOOLS', 'APPROVAL', 'FILE'], rows));
  return failed ? EXIT_FAILURE : EXIT_OK;
}
