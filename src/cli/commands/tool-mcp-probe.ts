/**
 * `codex-mmo tool-mcp probe ID [--json]`: starts one Tool MCP server exactly as Codex would, lists
 * its tools, stops it, and compares what it offers with the registry entry and the pin in
 * tool-mcp.lock. Exit 1 on any error (a tool not offered, drift, a server that does not start).
 */
import { hasErrors, probeServer } from '../../index.js';
import { codexInUse } from '../../runtime/codex/index.js';
import { readLockFile } from '../../config/lock/index.js';
import { maskDeep } from '../../foundation/diagnostics/index.js';
import { probeJson, probeText } from '../../runtime/probe/index.js';
import { diagnosticsAffecting } from '../../config/registry/index.js';
import { printDiagnostics, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';
import { startLiveCheck } from './tool-mcp-shared.js';

const USAGE = `Usage: codex-mmo tool-mcp probe ID [--json]

Start one Tool MCP server exactly as Codex would (stdio: a cleared environment with Codex's
default variables, the server's env_vars and env; streamable HTTP: its bearer token and headers),
run MCP initialize and tools/list within startup_timeout_sec, then stop it. Reports the server's
name, version and protocol version, every tool it offers with its annotations, and the time to
ready. Errors: an enabled tool the server does not offer (tool-not-offered), a tool that changed
since \`tool-mcp pin\` in any field (tool-drift), instructions, server info, resources or prompts
that changed since (server-drift), a server that fails to start, times out or breaks the
protocol. Warnings: an approval mode that runs a possibly-writing tool without asking
(approval-mode-risk). Credential values are never printed.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const start = await startLiveCheck(args, io, {
    usage: USAGE,
    action: 'probing it',
    failure: (server, diagnostics) => ({
      ok: false,
      server,
      launched: false,
      tools: [],
      diagnostics,
    }),
  });
  if (typeof start === 'number') return start;
  const { id, entry, live } = start;
  const [lock, codex] = await Promise.all([
    readLockFile(start.configDir),
    codexInUse(start.codexBin, io.env, io.cwd),
  ]);
  // ASKS and approval-mode-risk describe the Codex that sessions would use
  const result = await probeServer(entry, { ...live.ctx, lock, codex: codex.facts });
  const diagnostics = [
    ...diagnosticsAffecting(start.registry, id),
    ...live.diagnostics,
    ...result.diagnostics,
  ];
  const ok = !hasErrors(diagnostics);
  if (start.json) {
    // mask inside the data, so a short credential value can never break the JSON structure
    printJson(io, maskDeep(probeJson(result, diagnostics, ok), live.secrets));
  } else {
    live.out.stdout(probeText(result));
    printDiagnostics(live.out, diagnostics);
  }
  return ok ? EXIT_OK : EXIT_FAILURE;
}
