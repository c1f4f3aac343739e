/**
 * `codex-mmo tool-mcp probe ID [--json]`: starts one Tool MCP server exactly as Codex would, lists
 * its tools, stops it, and compares what it offers with the registry entry and the pin in
 * tool-mcp.lock. Exit 1 on any error (a tool not offered, drift, a server that does not start).
 */
import { hasErrors, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { configFiles } from '../../paths/directories.js';
import { planLaunch } from '../../probe/launch-plan.js';
import { readLockFile } from '../../probe/lock-file.js';
import { maskDeep, maskSecrets } from '../../probe/mask-secrets.js';
import { probeServer } from '../../probe/probe-server.js';
import { probeJson, probeText } from '../../probe/probe-report.js';
import { loadCredentials } from '../../registry/credentials.js';
import { loadRegistry } from '../../registry/load-registry.js';
import { diagnosticsAffecting, unknownServerDiagnostic } from '../../registry/validate-registry.js';
import { parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo tool-mcp probe ID [--json]

Start one Tool MCP server exactly as Codex would (stdio: a cleared environment with Codex's
default variables, the server's env_vars and env; streamable HTTP: its bearer token and headers),
run MCP initialize and tools/list within startup_timeout_sec, then stop it. Reports the server's
name, version and protocol version, every tool it offers with its annotations, and the time to
ready. Errors: an enabled tool the server does not offer (tool-not-offered), a tool that changed
since \`tool-mcp pin\` (tool-drift), a server that fails to start, times out or breaks the
protocol. Warnings: an approval mode that runs a possibly-writing tool without asking
(approval-mode-risk). Credential values are never printed.`;

/** Output that masks every credential value the server could have been given, as a last line of defence. */
function maskedIo(io: CliIo, secrets: readonly string[]): CliIo {
  return {
    ...io,
    stdout: (text) => {
      io.stdout(maskSecrets(text, secrets));
    },
    stderr: (text) => {
      io.stderr(maskSecrets(text, secrets));
    },
  };
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1 });
  if (cmd.help) return printHelp(io, USAGE);
  const id = cmd.positionals[0] ?? '';
  const configDir = cmd.dirs.configDir;
  const registry = await loadRegistry(configDir);
  const entry = registry.servers.get(id);
  if (!entry) {
    const status = registry.statuses.find((s) => s.id === id);
    const diagnostics: Diagnostic[] = status
      ? diagnosticsAffecting(registry, id)
      : [unknownServerDiagnostic(registry, id)];
    if (cmd.json) printJson(io, { ok: false, server: id, tools: [], diagnostics });
    else {
      printDiagnostics(io, diagnostics);
      if (status) {
        io.stderr(
          `codex-mmo: the definition of '${id}' in ${status.file} is invalid; fix the errors above before probing it\n`,
        );
      }
    }
    return EXIT_FAILURE;
  }
  const credentials = await loadCredentials(configFiles(configDir).credentials, io.env);
  const ctx = {
    env: io.env,
    home: io.home,
    cwd: io.cwd,
    credentials: credentials.source,
  };
  const secrets = planLaunch(entry.definition, ctx).secrets;
  const out = maskedIo(io, secrets);
  const lock = await readLockFile(configDir);
  const result = await probeServer(entry, { ...ctx, lock });
  const diagnostics = [
    ...diagnosticsAffecting(registry, id),
    ...credentials.diagnostics,
    ...result.diagnostics,
  ];
  const ok = !hasErrors(diagnostics);
  if (cmd.json) {
    // mask inside the data, so a short credential value can never break the JSON structure
    printJson(io, maskDeep(probeJson(result, diagnostics, ok), secrets));
  } else {
    out.stdout(probeText(result));
    printDiagnostics(out, diagnostics);
  }
  return ok ? EXIT_OK : EXIT_FAILURE;
}
