/**
 * `codex-mmo profile smoke P [--json] [--timeout SEC]`: runs real Codex for every process of
 * profile P as a session, against the built-in scripted model (offline, no API key): participants
 * are spawned through mmo_mesh. Reports, per role and process, the tools granted versus the tools
 * the model really receives, and what was and was not measured. Exit 1 on any error.
 */
import { formatTable, terminalSafe } from '../../foundation/text/index.js';
import { smokeProfile, summarize } from '../../index.js';
import { MESH_TOOL_NAMES } from '../../runtime/protocol/index.js';
import type { SmokeMeasurement, SmokeReport, ToolsByServer } from '../../features/smoke/index.js';
import { UsageError, parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo profile smoke P [--json] [--timeout SEC]

Live acceptance of profile P (an installed pack name or a pack directory), offline: compiles it and
runs it as a session would, against real Codex and a built-in scripted local model (no API key).
The session root runs as a Codex app-server with its rendered configuration, environment and
mmo_mesh; the scripted model has every process root spawn its native roles (spawn_agent) and its
participant roles (through mmo_mesh, whose broker checks the spawn grant and gives each
participant its own home and variables). The MCP tools each role's model is offered are compared
with the role's grants; mmo_mesh tools with its spawn/control grants. This starts the profile's
Tool MCP servers with the environment a session would give them, but calls no tool.
Native roles share their process root's Codex process: what they receive is measured in every
process they belong to and reported, not assumed.

Options:
  --timeout SEC   bound on the scripted turn of each process (default 120)

Exit status: 0 every root and participant role received exactly its grants; 1 a role received
a tool it was not granted or missed a granted one, a required server failed, a role could not be
measured, or smoke could not run.`;

const ALL_MESH_TOOLS = `all ${MESH_TOOL_NAMES.length} tools`;

function cell(tools: ToolsByServer, server: string): string {
  const names = tools[server];
  return names === undefined || names.length === 0 ? '-' : names.join(', ');
}

function resultOf(r: SmokeMeasurement, server: string): string {
  if (!r.measured) return 'NOT MEASURED';
  const extra = r.extra[server] ?? [];
  const missing = r.missing[server] ?? [];
  if (extra.length === 0 && missing.length === 0) return 'ok';
  const parts: string[] = [];
  if (extra.length > 0) parts.push(`extra: ${extra.join(', ')}`);
  if (missing.length > 0) parts.push(`missing: ${missing.join(', ')}`);
  return `${parts.join('; ')}${r.kind === 'native' ? ' (shared process)' : ''}`;
}

function kindOf(r: SmokeMeasurement): string {
  if (r.kind === 'native') return `native of ${r.process}`;
  if (r.via === 'mmo_mesh') return `participant (by ${r.spawned_by ?? '?'})`;
  if (r.via === 'app-server') return 'participant (own)';
  return r.kind;
}

/** The mmo_mesh row of a root or participant role, if the role has or received the mesh. */
function meshRow(name: string, r: SmokeMeasurement): string[] | undefined {
  if (!r.mesh.expected && r.mesh.received.length === 0) return undefined;
  const received =
    r.mesh.received.length === MESH_TOOL_NAMES.length
      ? ALL_MESH_TOOLS
      : r.mesh.received.join(', ') || '-';
  let result: string;
  if (!r.measured) result = 'NOT MEASURED';
  else if (!r.mesh.measured) result = 'not measured (started without mmo_mesh)';
  else if (r.mesh.expected === (received === ALL_MESH_TOOLS)) result = 'ok';
  else result = r.mesh.expected ? 'missing' : 'extra';
  if (r.kind === 'native' && result !== 'ok') result += ' (shared process)';
  return [
    name,
    kindOf(r),
    'mmo_mesh',
    r.mesh.expected ? ALL_MESH_TOOLS : '-',
    r.measured && r.mesh.measured ? received : '?',
    result,
  ];
}

function rowsOf(name: string, r: SmokeMeasurement): string[][] {
  const rows: string[][] = [];
  const servers = [...new Set([...Object.keys(r.granted), ...Object.keys(r.received)])].sort();
  if (servers.length === 0) {
    rows.push([name, kindOf(r), '-', '-', '-', r.measured ? 'ok' : 'NOT MEASURED']);
  }
  for (const server of servers) {
    rows.push([
      name,
      kindOf(r),
      server,
      cell(r.granted, server),
      r.measured ? cell(r.received, server) : '?',
      resultOf(r, server),
    ]);
  }
  const mesh = meshRow(name, r);
  if (mesh !== undefined) rows.push(mesh);
  return rows;
}

/** `text` broken into lines of at most `width` characters, the first after `lead`. */
function wrap(text: string, width: number, lead: string, indent: string): string[] {
  const out: string[] = [];
  let line = lead;
  for (const word of text.split(' ')) {
    const prefix = out.length === 0 ? lead : indent;
    if (line !== prefix && line.length + 1 + word.length > width) {
      out.push(line);
      line = indent;
    }
    line += line === lead || line === indent ? word : ` ${word}`;
  }
  out.push(line);
  return out;
}

function textReport(report: SmokeReport): string {
  const rows: string[][] = [];
  for (const [name, role] of Object.entries(report.roles)) {
    rows.push(...rowsOf(name, role));
    for (const other of role.other_processes) rows.push(...rowsOf(name, other));
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
        terminalSafe(
          `  ${f.server} (process ${f.process}${f.required ? ', required' : ''}): ${f.error}`,
        ),
      );
    }
  }
  if (report.missing_env.length > 0) {
    lines.push('', 'Missing variables:');
    for (const m of report.missing_env) {
      lines.push(`  ${m.variable} (server ${m.server}, process ${m.process})`);
    }
  }
  if (report.scope.length > 0) {
    lines.push('', 'What was measured:');
    for (const line of report.scope) lines.push(...wrap(line, 98, '  - ', '    '));
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
