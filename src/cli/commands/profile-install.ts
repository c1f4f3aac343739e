/**
 * `codex-mmo profile install DIR [--force] [--json]`: validates the pack in DIR and copies it
 * read-only into `<data-dir>/profiles/<name>/`. An identical installed pack is left unchanged; a
 * different one is replaced only with --force. Exit 1 when the pack is invalid or installation fails.
 */
import { resolve } from 'node:path';

import { installPack } from '../../index.js';
import { unresolvedGrantWarnings } from '../../config/profile/index.js';
import { parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo profile install DIR [--force] [--json]

Validate the profile pack in DIR (profile.toml plus the instruction files it references) and
install it read-only as <data-dir>/profiles/<name>/. Installing the same content again changes
nothing; a different pack of the same name is replaced only with --force. A grant that does not
resolve against the operator registry (an unknown server, a tool outside its enabled_tools) is a
warning: the pack installs, but sessions of it fail until the grant or the registry is fixed.

Options:
  --force              replace a different installed pack of the same name
Exit status: 0 installed or unchanged, 1 invalid pack or installation failed.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(
    args,
    io,
    { force: { type: 'boolean', default: false } },
    { min: 1, max: 1 },
  );
  if (cmd.help) return printHelp(io, USAGE);
  const dir = resolve(io.cwd, cmd.positionals[0] ?? '');
  const installed = await installPack(dir, cmd.dirs.dataDir, { force: cmd.values.force === true });
  const ok = installed.path !== undefined;
  // grants are checked against the registry, but only warned about: the pack is valid on its own
  const result = ok
    ? {
        ...installed,
        diagnostics: [
          ...installed.diagnostics,
          ...(await unresolvedGrantWarnings(dir, cmd.dirs.configDir)),
        ],
      }
    : installed;
  const status = !ok
    ? 'refused'
    : !result.created
      ? 'unchanged'
      : result.replaced
        ? 'replaced'
        : 'installed';
  if (cmd.json) {
    printJson(io, {
      ok,
      status,
      ...(result.name !== undefined ? { name: result.name } : {}),
      ...(result.path !== undefined ? { path: result.path } : {}),
      created: result.created,
      replaced: result.replaced,
      diagnostics: result.diagnostics,
    });
    return ok ? EXIT_OK : EXIT_FAILURE;
  }
  printDiagnostics(io, result.diagnostics);
  if (!ok) {
    io.stdout(`profile pack in ${dir} was not installed\n`);
    return EXIT_FAILURE;
  }
  const name = result.name ?? '';
  const path = result.path;
  if (status === 'unchanged')
    io.stdout(
      `profile ${name} is already installed with the same content at ${path} (unchanged)\n`,
    );
  else if (status === 'replaced') io.stdout(`profile ${name} replaced at ${path}\n`);
  else io.stdout(`profile ${name} installed at ${path}\n`);
  return EXIT_OK;
}
