/**
 * `codex-mmo session show ID [--json]`: one session's record (profile, snapshot, supervising
 * process, status, every Codex process with its home and status). ID may be a unique prefix.
 * The text view is terminal-safe: an error that quotes a server's or Codex's output is one line.
 */
import { formatTable, terminalSafe } from '../../foundation/text/index.js';
import { listSessionApprovals } from '../../runtime/approvals/index.js';
import { isAlive, livenessFor } from '../../foundation/process/index.js';
import {
  budgetLines,
  isActiveStatus,
  effectiveRecord,
  locateSession,
  readSessionRecord,
} from '../../runtime/session/index.js';
import { parseCommand, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';
import { clearAbandonedSessions } from '../../features/session/upkeep/index.js';

const USAGE = `Usage: codex-mmo session show ID [--json]

Show a session: profile, snapshot, status, the supervising codex-mmo process, its directory and
every Codex process (the session root and each participant) with its role, pid, status and
private Codex home, how many approval requests wait for a person ('session approvals ID'
lists them), and the servers the operator marked \`shared = true\` that one instance serves. ID may be a unique prefix of a session id.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1 });
  // what sessions killed with their watchdog left behind goes first
  await clearAbandonedSessions(cmd.dirs.stateDir);
  if (cmd.help) return printHelp(io, USAGE);
  const dir = await locateSession(cmd.dirs.stateDir, cmd.positionals[0] ?? '');
  const stored = await readSessionRecord(dir);
  const record = effectiveRecord(stored, livenessFor(stored.pid, stored.pid_start, isAlive));
  const pending = (await listSessionApprovals(dir)).approvals.length;
  if (cmd.json) {
    printJson(io, { ...record, dir, pending_approvals: pending });
    return EXIT_OK;
  }
  const lines: [string, string][] = [
    ['session', record.id],
    ['status', record.status],
    ['profile', record.profile],
    ['snapshot', record.snapshot],
    ['mode', record.mode],
    ...(record.resumed_from !== undefined
      ? [['resumed from', record.resumed_from] as [string, string]]
      : []),
    ['cwd', record.cwd],
    ['started', record.started],
  ];
  if (record.ended !== undefined) lines.push(['ended', record.ended]);
  if (record.exit_code !== undefined) lines.push(['exit code', String(record.exit_code)]);
  if (record.error !== undefined) lines.push(['error', record.error]);
  lines.push(['supervisor pid', String(record.pid)], ['directory', dir]);
  lines.push(['pending approvals', String(pending)]);
  if (record.shared_servers !== undefined && record.shared_servers.length > 0) {
    lines.push([
      'shared servers',
      `${record.shared_servers.join(', ')} (one instance for every process granted it; its state is shared between roles)`,
    ]);
  }
  if (record.leased_servers !== undefined && record.leased_servers.length > 0) {
    lines.push([
      'leased servers',
      `${record.leased_servers.join(', ')} (answered from the pin; each starts when first used)`,
    ]);
  }
  if (record.budget !== undefined) {
    const { ceilings, use, peak, refused } = record.budget;
    // a running session shows what it uses now; an ended one the most it used
    const ended = !isActiveStatus(record.status) && peak !== undefined;
    const shown = ended ? peak : use;
    for (const [what, value] of budgetLines(ceilings, shown)) {
      lines.push([`budget: ${what}`, ended ? `peak ${value}` : value]);
    }
    lines.push(['budget: refused', String(refused)]);
  }
  const width = Math.max(...lines.map(([k]) => k.length));
  for (const [key, value] of lines) {
    io.stdout(`${`${key}:`.padEnd(width + 2)}${terminalSafe(value)}\n`);
  }
  io.stdout('\n');
  io.stdout(
    formatTable(
      ['PROCESS', 'ROLE', 'STATUS', 'PID', 'OWNER', 'HOME'],
      record.processes.map((p) => [
        p.id,
        p.role,
        p.status,
        p.pid !== undefined ? String(p.pid) : '-',
        p.owner ?? '-',
        p.home,
      ]),
    ),
  );
  for (const p of record.processes) {
    if (p.resumed_from !== undefined) {
      io.stdout(`${terminalSafe(`${p.id}: continues ${p.resumed_from}`)}\n`);
    }
    if (p.error !== undefined) io.stdout(`${terminalSafe(`${p.id}: ${p.error}`)}\n`);
  }
  return EXIT_OK;
}
