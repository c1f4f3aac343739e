/**
 * `codex-mmo profile doctor P [--json]`: checks a profile against the registry, credentials, the
 * Codex binary and tool pins, and says plainly what Codex 0.149 does not isolate between native
 * roles. Launches no MCP server. Exit 1 when any error is found.
 */
import { formatTable } from '../../foundation/text/index.js';
import { doctorProfile, summarize } from '../../index.js';
import { parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo profile doctor P [--json]

Check profile P (an installed pack name or a pack directory) without launching any MCP server:
the pack itself; its grants against the operator registry; the registry problems and readiness
(command, cwd, environment variables) of the servers it uses — a missing variable of a required
grant is an error, of a non-required grant a warning; credentials.env permissions;
codex-base.toml; the Codex binary and its version; tool pins in tool-mcp.lock; and native roles
whose grants (tools and mmo_mesh reach) Codex 0.149 does not enforce (native-role-not-isolated).
Exit status: 0 no errors (warnings allowed), 1 errors found.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1 });
  if (cmd.help) return printHelp(io, USAGE);
  const report = await doctorProfile({
    nameOrPath: cmd.positionals[0] ?? '',
    dirs: cmd.dirs,
    cwd: io.cwd,
    env: io.env,
    home: io.home,
  });
  if (cmd.json) {
    printJson(io, report);
    return report.ok ? EXIT_OK : EXIT_FAILURE;
  }
  printDiagnostics(io, report.diagnostics);
  const lines: string[] = [];
  if (report.profile !== undefined) lines.push(`profile ${report.profile} (${report.pack ?? ''})`);
  lines.push(
    report.codex.found
      ? `codex: ${report.codex.path ?? ''} (version ${report.codex.version ?? 'unknown'})`
      : 'codex: NOT FOUND',
  );
  if (report.servers.length > 0) {
    lines.push(
      '',
      formatTable(
        ['SERVER', 'TRANSPORT', 'REQUIRED', 'ROLES', 'STATUS', 'PINNED', 'VARIABLES'],
        report.servers.map((s) => [
          s.id,
          s.transport ?? '-',
          s.required ? 'yes' : 'no',
          s.roles.join(', '),
          s.ok ? 'ready' : 'NOT READY',
          s.drifted ? 'CHANGED' : s.pinned ? 'yes' : 'no',
          s.variables.length > 0
            ? s.variables
                .map((v) => `${v.name} (${v.present ? (v.origin ?? 'present') : 'missing'})`)
                .join(', ')
            : '-',
        ]),
      ).trimEnd(),
    );
  }
  const { errors, warnings } = summarize(report.diagnostics);
  const counts = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  lines.push(
    '',
    report.ok ? `doctor: no errors (${counts})` : `doctor: problems found (${counts})`,
  );
  io.stdout(`${lines.join('\n')}\n`);
  return report.ok ? EXIT_OK : EXIT_FAILURE;
}
