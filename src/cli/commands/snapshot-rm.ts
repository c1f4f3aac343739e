/**
 * `codex-mmo snapshot rm ID [--json]`: removes one stored snapshot, unless a running session uses
 * it. Records of ended sessions that used it stay (their own files keep what they rendered).
 */
import { listSessionRecords } from '../../index.js';
import { isAlive, livenessFor } from '../../foundation/process/index.js';
import { effectiveRecord, isActiveStatus } from '../../runtime/session/index.js';
import { removeSnapshot, resolveSnapshotHex } from '../../config/snapshot/index.js';
import { diagnostic } from '../../foundation/diagnostics/index.js';
import { parseCommand, printCaughtError, printFailure, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo snapshot rm ID [--json]

Remove one stored snapshot from <data-dir>/snapshots now (ID is 'sha256:<hex>' or a unique prefix
of the hex digits), for example one compiled from inputs you have since corrected. Refused while
a running session uses it: stop that session first. 'snapshot prune' removes every unreferenced
snapshot older than an hour.

JSON: {"removed": "sha256:…", "ended_sessions": [ids of ended sessions that used it]}`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1, names: ['ID'] });
  if (cmd.help) return printHelp(io, USAGE);
  try {
    const hex = await resolveSnapshotHex(cmd.dirs.dataDir, cmd.positionals[0] ?? '');
    const id = `sha256:${hex}`;
    const users = (await listSessionRecords(cmd.dirs.stateDir))
      .filter((r) => r.snapshot === id)
      .map((r) => effectiveRecord(r, livenessFor(r.pid, r.pid_start, isAlive)));
    const running = users.filter((r) => isActiveStatus(r.status)).map((r) => r.id);
    if (running.length > 0) {
      return printFailure(io, cmd.json, [
        diagnostic({
          code: 'snapshot-in-use',
          message: `snapshot ${id} is used by running session${running.length === 1 ? '' : 's'} ${running.join(', ')}; stop ${running.length === 1 ? 'it' : 'them'} first (codex-mmo session stop ${running[0] ?? ''}), then remove the snapshot`,
        }),
      ]);
    }
    await removeSnapshot(cmd.dirs.dataDir, hex);
    const ended = users.map((r) => r.id);
    if (cmd.json) {
      printJson(io, { removed: id, ended_sessions: ended });
      return EXIT_OK;
    }
    io.stdout(`removed ${id}\n`);
    if (ended.length > 0) {
      io.stdout(
        `(ended session${ended.length === 1 ? '' : 's'} that used it: ${ended.join(', ')})\n`,
      );
    }
    return EXIT_OK;
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
}
