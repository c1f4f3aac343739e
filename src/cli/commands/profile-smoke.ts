/**
 * `codex-mmo profile smoke P [--json] [--timeout SEC]`: runs real Codex for every process of
 * profile P against the built-in scripted model (offline, no API key) and reports, per role,
 * the tools granted versus the tools the model really receives. Exit 1 on any error.
 */
import { summarize } from '../../diagnostics/diagnostic.js';
import { smokeProfile, type SmokeReport, type ToolsByServer } from '../../session/smoke.js';
import {
  UsageError,
  formatTable,
  parseCommand,
  printDiagnostics,
  printHelp,
  printJson,
} from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo profile smoke P [--json] [--timeout SEC]

Live acceptance of profile P (an installed pack name or a pack directory), offline: compiles it,
renders each Codex process (session root and every participant) into a temporary home, starts
real Codex against a built-in scripted local model, has the process root spawn each of its
native roles, and compares the tools each role is granted with the MCP tools its model requests
really offer. This starts the profile's Tool MCP servers with the environment a session would give
them. mmo_mesh is not started; participants are checked as their own processes.
Native roles share their process root's Codex process; what they receive is measured and
reported, not assumed.

Options:
  --timeout SEC   bound on each process's scripted turn (default 120)

Exit status: 0 every root and participant role received exactly its grants; 1 a role received
a tool it was not granted or missed a granted one, a required server failed, or smoke could not run.`;

function cell(tools: ToolsByServer, server: string): string {
  const names = tools[server];
  return names === undefined || names.length === 0 ? '-' : names.join(', ');
}

function resultOf(report: SmokeReport, role: string, server: string): string {
  const r = report.roles[role];
  if (r === undefined) return '';
  if (!r.measured) return 'NOT MEASURED';
  const extra = r.extra[server] ?? [];
  const missing = r.missing[server] ?? [];
  if (extra.length === 0 && missing.length === 0) return 'ok';
  const parts: string[] = [];
  if (extra.length > 0) parts.push(`extra: ${extra.join(', ')}`);
  if (missing.length > 0) parts.push(`missing: ${missing.join(', ')}`);
  return `${parts.join('; ')}${r.kind === 'native' ? ' (shared process)' : ''}`;
}

function textReport(report: SmokeReport): string {
  const rows: string[][] = [];
  for (const [name, role] of Object.entries(report.roles)) {
    const servers = [
      ...new Set([...Object.keys(role.granted), ...Object.keys(role.received)]),
    ].sort();
    const kind = role.kind === 'native' ? `native of ${role.process}` : role.kind;
    if (servers.length === 0) {
      rows.push([name, kind, '-', '-', '-', role.measured ? 'ok' : 'NOT MEASURED']);
      continue;
    }
    for (const server of servers) {
      rows.push([
        name,
        kind,
        server,
        cell(role.granted, server),
        role.measured ? cell(role.received, server) : '?',
        resultOf(report, name, server),
      ]);
    }
  }
  const lines: string[] = [];
  if (report.profile !== undefined) {
    lines.push(
      `profile ${report.profile}${report.snapshot !== undefined ? ` (${report.snapshot})` : ''}`,
    );
  }
  if (rows.length > 0) {
    lines.push(
      '',
      formatTable(['ROLE', 'KIND', 'SERVER', 'GRANTED', 'RECEIVED', 'RESULT'], rows).trimEnd(),
    );
  }
  if (report.servers_failed.length > 0) {
    lines.push('', 'Servers that failed to start:');
    for (const f of report.servers_failed) {
      lines.push(
        `  ${f.server} (process ${f.process}${f.required ? ', required' : ''}): ${f.error}`,
      );
    }
  }
  if (report.missing_env.length > 0) {
    lines.push('', 'Missing variables:');
    for (const m of report.missing_env) {
      lines.push(`  ${m.variable} (server ${m.server}, process ${m.process})`);
    }
  }
  const { errors, warnings } = summarize(report.diagnostics);
  const counts = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  lines.push('', report.ok ? `smoke: passed (${counts})` : `smoke: FAILED (${counts})`);
  return `${lines.join('\n')}\n`;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, { timeout: { type: 'string' } }, { min: 1, max: 1 });
  if (cmd.help) return printHelp(io, USAGE);
  let turnTimeoutMs: number | undefined;
  if (typeof cmd.values.timeout === 'string') {
    const seconds = Number(cmd.values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new UsageError(
        `--timeout must be a positive number of seconds, not '${cmd.values.timeout}'`,
      );
    }
    turnTimeoutMs = seconds * 1000;
  }
  const report = await smokeProfile({
    nameOrPath: cmd.positionals[0] ?? '',
    dirs: cmd.dirs,
    cwd: io.cwd,
    env: io.env,
    home: io.home,
    ...(turnTimeoutMs !== undefined ? { turnTimeoutMs } : {}),
  });
  if (cmd.json) {
    printJson(io, report);
  } else {
    printDiagnostics(io, report.diagnostics);
    io.stdout(textReport(report));
  }
  return report.ok ? EXIT_OK : EXIT_FAILURE;
}
