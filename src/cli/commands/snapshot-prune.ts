/**
 * `codex-mmo snapshot prune [--json]`: removes stored snapshots that no session record references
 * and that no installed pack compiles to with the current registry, base settings and pins.
 */
import { compileProfile, listPacks, listSessionRecords } from '../../index.js';
import { pruneSnapshots, SNAPSHOT_PRUNE_GRACE_MS } from '../../config/snapshot/index.js';
import { parseCommand, printCaughtError, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo snapshot prune [--json]

Remove snapshots from <data-dir>/snapshots that nothing references: kept are the snapshot of
every session in <state-dir>/sessions (running or ended; \`session prune\` releases those), the
snapshot each installed pack compiles to now (with the current registry, codex-base.toml and
tool-mcp.lock), and any snapshot stored within the last ${SNAPSHOT_PRUNE_GRACE_MS / 60_000} minutes (a launch may be about
to record it).

JSON: {"removed": ["sha256:…"], "kept": [{"id", "reason"}]} with reason "referenced" or "too-recent".`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 0, max: 0 });
  if (cmd.help) return printHelp(io, USAGE);
  let result;
  try {
    const referenced = new Set<string>();
    for (const record of await listSessionRecords(cmd.dirs.stateDir)) {
      referenced.add(record.snapshot);
    }
    for (const pack of await listPacks(cmd.dirs.dataDir)) {
      if (!pack.valid) continue;
      const compiled = await compileProfile({ nameOrPath: pack.name, dirs: cmd.dirs, cwd: io.cwd });
      if (compiled.stored !== undefined) referenced.add(compiled.stored.id);
    }
    result = await pruneSnapshots({ dataDir: cmd.dirs.dataDir, referenced, now: new Date() });
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
  if (cmd.json) {
    printJson(io, result);
    return EXIT_OK;
  }
  for (const id of result.removed) io.stdout(`removed ${id}\n`);
  io.stdout(
    `${result.removed.length} snapshot${result.removed.length === 1 ? '' : 's'} removed, ${result.kept.length} kept\n`,
  );
  return EXIT_OK;
}
