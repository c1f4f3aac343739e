/**
 * `codex-mmo snapshot compile PROFILE [--json]`: compiles a profile (installed name or pack path)
 * with the operator registry, codex-base.toml and tool pins into an immutable snapshot. Idempotent:
 * the same inputs give the same id, reported with `created: false`, and nothing is rewritten.
 */
import { compileProfile } from '../../index.js';
import {
  parseCommand,
  printCaughtError,
  printDiagnostics,
  printFailure,
  printHelp,
  printJson,
} from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo snapshot compile PROFILE [--json]

Compile PROFILE (an installed pack name or a path to a pack directory) together with the operator
registry, codex-base.toml and tool-mcp.lock into an immutable, content-addressed snapshot stored
under <data>/snapshots/. Prints the snapshot id; compiling unchanged inputs again gives the same id
and writes nothing.

Exit status: 0 compiled (or already stored), 1 the profile, its grants, the registry entries
it uses, codex-base.toml or tool-mcp.lock have errors.

JSON: {"id": "sha256:…", "created": bool, "profile", "dir", "diagnostics"}`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1 });
  if (cmd.help) return printHelp(io, USAGE);
  const nameOrPath = cmd.positionals[0] ?? '';
  let result;
  try {
    result = await compileProfile({
      nameOrPath,
      dirs: cmd.dirs,
      cwd: io.cwd,
      env: io.env,
      home: io.home,
    });
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
  const { stored, created, diagnostics } = result;
  if (stored === undefined) return printFailure(io, cmd.json, diagnostics);
  if (cmd.json) {
    printJson(io, {
      id: stored.id,
      created,
      profile: stored.snapshot.profile.name,
      dir: stored.dir,
      diagnostics,
    });
    return EXIT_OK;
  }
  printDiagnostics(io, diagnostics);
  io.stdout(
    `${stored.id}\n${created ? 'stored' : 'already stored'}: profile ${stored.snapshot.profile.name} in ${stored.dir}\n`,
  );
  return EXIT_OK;
}
