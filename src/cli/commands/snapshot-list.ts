/**
 * `codex-mmo snapshot list [--json]`: every stored snapshot, verified, oldest first. A snapshot
 * whose bytes no longer match its id is listed as DAMAGED and makes the command exit 1.
 */
import { formatTable, terminalSafe } from '../../foundation/text/index.js';
import { listSnapshots } from '../../index.js';
import { parseCommand, printCaughtError, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo snapshot list [--json]

List the snapshots stored under <data>/snapshots/, oldest first, each verified against its id.
Exit status: 0 all snapshots verified, 1 a snapshot is damaged or the store cannot be read.

JSON: {"snapshots": [{"id", "stored_at", "ok", "profile", "root", "roles", "servers", "problem"?}]}`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 0, max: 0 });
  if (cmd.help) return printHelp(io, USAGE);
  let snapshots;
  try {
    snapshots = await listSnapshots(cmd.dirs.dataDir);
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
  const damaged = snapshots.filter((s) => !s.ok);
  if (cmd.json) {
    printJson(io, { snapshots });
    return damaged.length > 0 ? EXIT_FAILURE : EXIT_OK;
  }
  if (snapshots.length === 0) {
    io.stdout(
      `no snapshots stored in ${cmd.dirs.dataDir}/snapshots (create one with: codex-mmo snapshot compile PROFILE)\n`,
    );
    return EXIT_OK;
  }
  const rows = snapshots.map((s) => [
    s.id.slice(0, 'sha256:'.length + 16),
    s.ok ? (s.profile ?? '') : 'DAMAGED',
    s.root ?? '',
    String(s.roles?.length ?? ''),
    (s.servers ?? []).join(',') || '-',
    s.stored_at,
  ]);
  io.stdout(formatTable(['ID', 'PROFILE', 'ROOT', 'ROLES', 'SERVERS', 'STORED'], rows));
  for (const s of damaged) {
    io.stderr(`codex-mmo: ${terminalSafe(s.problem ?? `${s.id} is damaged`)}\n`);
  }
  return damaged.length > 0 ? EXIT_FAILURE : EXIT_OK;
}
