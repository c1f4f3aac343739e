/**
 * `codex-mmo tool-mcp remove ID [--json]`: takes a server out of the registry (its table out of
 * the fragments that define it, a fragment left empty deleted) and its pin out of tool-mcp.lock,
 * and names the installed packs that still grant it. Starts nothing.
 */
import { basename } from 'node:path';

import { removeServer, type RemoveResult } from '../../features/onboard/index.js';
import {
  parseCommand,
  printCaughtError,
  printDiagnostics,
  printHelp,
  printJson,
} from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo tool-mcp remove ID [--json]

Remove server ID from the operator registry: its [tool_mcp_servers.ID] table (and sub-tables,
with the comments just above) is cut out of every fragment in tool-mcp.d that defines it, a
fragment left without servers is deleted, and its pin is removed from tool-mcp.lock. Other
servers and comments stay as written. Installed profile packs that still grant ID are named:
their grants no longer resolve until the operator defines it again. Running sessions keep
their snapshot.

JSON: {"ok", "id", "fragments": [{"file", "action"}], "unpinned", "granted_by": [{"pack", "roles"}], "diagnostics"}`;

function text(result: RemoveResult): string {
  const lines: string[] = [];
  for (const change of result.fragments) {
    lines.push(
      change.action === 'deleted'
        ? `Removed '${result.id}' and deleted ${change.file} (no other server was left in it)`
        : `Removed '${result.id}' from ${change.file}${change.action === 'rewritten' ? ' (the file was rewritten from its data: its comments were not kept)' : ''}`,
    );
  }
  lines.push(
    result.unpinned
      ? `Removed its pin from tool-mcp.lock`
      : `tool-mcp.lock had no pin for '${result.id}'`,
  );
  for (const use of result.grantedBy) {
    lines.push(
      `Installed pack ${use.pack} still grants '${result.id}' (roles: ${use.roles.join(', ')}); its grants no longer resolve`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1, names: ['ID'] });
  if (cmd.help) return printHelp(io, USAGE);
  let result: RemoveResult;
  try {
    result = await removeServer(cmd.positionals[0] ?? '', cmd.dirs);
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
  if (cmd.json) {
    printJson(io, {
      ok: result.ok,
      id: result.id,
      fragments: result.fragments.map((f) => ({ file: f.file, action: f.action })),
      unpinned: result.unpinned,
      granted_by: result.grantedBy,
      diagnostics: result.diagnostics,
    });
  } else {
    printDiagnostics(io, result.diagnostics);
    if (result.fragments.length > 0 || result.unpinned) io.stdout(text(result));
    else if (result.ok) io.stdout(`nothing to remove for '${basename(result.id)}'\n`);
  }
  return result.ok ? EXIT_OK : EXIT_FAILURE;
}
