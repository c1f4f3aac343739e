/**
 * `codex-mmo tool-mcp pin ID [--json]`: probes one Tool MCP server and records the surface of each
 * enabled tool it offers in `<config>/tool-mcp.lock`, accepting any drift. Refuses (exit 1, lock
 * untouched) when the probe has errors other than drift, e.g. an enabled tool it does not offer.
 */
import { hasErrors, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { configFiles } from '../../paths/directories.js';
import { planLaunch } from '../../probe/launch-plan.js';
import { maskDeep, maskSecrets } from '../../probe/mask-secrets.js';
import { pinServer, type PinResult } from '../../probe/pin-server.js';
import { driftJson } from '../../probe/probe-report.js';
import { loadCredentials } from '../../registry/credentials.js';
import { loadRegistry } from '../../registry/load-registry.js';
import { diagnosticsAffecting, unknownServerDiagnostic } from '../../registry/validate-registry.js';
import { parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo tool-mcp pin ID [--json]

Probe one Tool MCP server (as \`tool-mcp probe ID\` does) and record, for each enabled tool it
offers, a digest of its name, description, input schema and annotations, plus that text, in
tool-mcp.lock in the config dir. Later probes report any change as tool-drift; run pin again
after reviewing a change to accept it. Nothing is written when the probe finds errors other
than drift (for example an enabled tool the server does not offer, or a server that does not
start): fix those first.`;

function pinJson(result: PinResult, diagnostics: readonly Diagnostic[], ok: boolean): unknown {
  return {
    ok,
    server: result.server,
    lock_file: result.lockFile,
    written: result.written,
    ...(result.probe.serverInfo !== undefined ? { serverInfo: result.probe.serverInfo } : {}),
    ...(result.probe.protocolVersion !== undefined
      ? { protocolVersion: result.probe.protocolVersion }
      : {}),
    tools: (result.pin?.tools ?? []).map((t) => ({ name: t.name, digest: t.digest })),
    accepted: driftJson(result.accepted),
    added: result.added,
    removed: result.removed,
    diagnostics,
  };
}

function pinText(result: PinResult): string {
  if (result.pin === undefined) return '';
  const count = result.pin.tools.length;
  const lines: string[] = [];
  if (!result.written) {
    lines.push(
      `${result.server}: the tool surface is unchanged; ${result.lockFile} is already up to date (${count} tool${count === 1 ? '' : 's'})`,
    );
  } else {
    lines.push(
      `Pinned ${count} tool${count === 1 ? '' : 's'} of ${result.server} in ${result.lockFile}`,
    );
    for (const drift of result.accepted) {
      lines.push(
        `  accepted changed tool '${drift.tool}': ${drift.changes.map((c) => c.summary).join('; ')}`,
      );
    }
    if (result.added.length > 0) lines.push(`  newly pinned: ${result.added.join(', ')}`);
    if (result.removed.length > 0) {
      lines.push(`  no longer pinned (not enabled): ${result.removed.join(', ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
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
    if (cmd.json) printJson(io, { ok: false, server: id, written: false, tools: [], diagnostics });
    else printDiagnostics(io, diagnostics);
    return EXIT_FAILURE;
  }
  const credentials = await loadCredentials(configFiles(configDir).credentials, io.env);
  const ctx = { env: io.env, home: io.home, cwd: io.cwd, credentials: credentials.source };
  const secrets = planLaunch(entry.definition, ctx).secrets;
  const out: CliIo = {
    ...io,
    stdout: (text) => {
      io.stdout(maskSecrets(text, secrets));
    },
    stderr: (text) => {
      io.stderr(maskSecrets(text, secrets));
    },
  };
  const result = await pinServer(entry, { ...ctx, configDir });
  const diagnostics = [
    ...diagnosticsAffecting(registry, id),
    ...credentials.diagnostics,
    ...result.diagnostics,
  ];
  const ok = result.ok && !hasErrors(diagnostics);
  if (cmd.json) {
    printJson(io, maskDeep(pinJson(result, diagnostics, ok), secrets));
  } else {
    out.stdout(pinText(result));
    printDiagnostics(out, diagnostics);
    if (!result.ok) {
      out.stderr(
        `codex-mmo: ${id} was not pinned; ${result.lockFile} is unchanged. Fix the errors above, then run pin again\n`,
      );
    }
  }
  return ok ? EXIT_OK : EXIT_FAILURE;
}
