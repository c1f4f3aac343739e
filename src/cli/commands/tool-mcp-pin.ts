/**
 * `codex-mmo tool-mcp pin ID [--json]`: probes one Tool MCP server and records the surface of each
 * enabled tool it offers in `<config>/tool-mcp.lock`, accepting any drift. Refuses (exit 1, lock
 * untouched) when the probe has errors other than drift, e.g. an enabled tool it does not offer.
 */
import { type Diagnostic, hasErrors, type PinResult, pinServer } from '../../index.js';
import { maskDeep } from '../../foundation/diagnostics/index.js';
import { driftJson } from '../../runtime/probe/index.js';
import {
  diagnosticsAffecting,
  knownCredentials,
  fragmentCredentialLiterals,
  referencedEnvVars,
} from '../../config/registry/index.js';
import { printDiagnostics, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';
import { startLiveCheck } from './tool-mcp-shared.js';

const USAGE = `Usage: codex-mmo tool-mcp pin ID [--json]

Probe one Tool MCP server (as \`tool-mcp probe ID\` does) and record, for each enabled tool it
offers, a digest of its name, description, input schema and annotations, plus that text, in
tool-mcp.lock in the config dir, together with the server's reported name and version and what
decides the server that runs (command and the executable it resolves to, package version, args,
cwd, literal env as digests, variable names, URL, header names). validate, doctor and session
start report a definition changed since its pin as definition-drift; a re-pin lists what it
accepts. Later probes report any change as tool-drift; run pin again
after reviewing a change to accept it. Nothing is written when the probe finds errors other
than drift (for example an enabled tool the server does not offer, or a server that does not
start): fix those first.`;

function pinJson(result: PinResult, diagnostics: readonly Diagnostic[], ok: boolean): unknown {
  return {
    ok,
    server: result.server,
    lock_file: result.lockFile,
    written: result.written,
    ...(result.probe.serverInfo !== undefined ? { server_info: result.probe.serverInfo } : {}),
    ...(result.probe.protocolVersion !== undefined
      ? { protocol_version: result.probe.protocolVersion }
      : {}),
    tools: (result.pin?.tools ?? []).map((t) => ({ name: t.name, digest: t.digest })),
    accepted: driftJson(result.accepted),
    accepted_server: result.acceptedServer.map((c) => ({ part: c.part, summary: c.summary })),
    definition_changes: result.definitionChanges,
    ...(result.identity !== undefined ? { identity_change: result.identity } : {}),
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
    if (result.identity !== undefined) {
      lines.push(`  accepted server change: ${result.identity.before} → ${result.identity.after}`);
    }
    for (const change of result.definitionChanges) {
      lines.push(`  accepted definition change: ${change}`);
    }
    for (const change of result.acceptedServer) {
      lines.push(`  accepted server change: ${change.summary}`);
    }
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
  const start = await startLiveCheck(args, io, {
    usage: USAGE,
    action: 'pinning it',
    failure: (server, diagnostics) => ({
      ok: false,
      server,
      written: false,
      tools: [],
      diagnostics,
    }),
  });
  if (typeof start === 'number') return start;
  const { id, entry, live } = start;
  // the pin records args and other literals: one holding a credential is never written down
  const pasted = fragmentCredentialLiterals(
    [entry],
    knownCredentials(
      live.ctx.credentials,
      [...start.registry.servers.values()].flatMap((e) => referencedEnvVars(e.definition)),
    ),
  );
  if (pasted.length > 0) {
    if (start.json) {
      printJson(io, { ok: false, server: id, written: false, tools: [], diagnostics: pasted });
    } else {
      printDiagnostics(live.out, pasted);
      live.out.stderr(
        `codex-mmo: ${id} was not pinned. Fix the errors above, then run pin again\n`,
      );
    }
    return EXIT_FAILURE;
  }
  const result = await pinServer(entry, { ...live.ctx, configDir: start.configDir });
  const diagnostics = [
    ...diagnosticsAffecting(start.registry, id),
    ...live.diagnostics,
    ...result.diagnostics,
  ];
  const ok = result.ok && !hasErrors(diagnostics);
  if (start.json) {
    printJson(io, maskDeep(pinJson(result, diagnostics, ok), live.secrets));
  } else {
    live.out.stdout(pinText(result));
    printDiagnostics(live.out, diagnostics);
    if (!result.ok) {
      live.out.stderr(
        `codex-mmo: ${id} was not pinned; ${result.lockFile} is unchanged. Fix the errors above, then run pin again\n`,
      );
    }
  }
  return ok ? EXIT_OK : EXIT_FAILURE;
}
