/**
 * `codex-mmo profile list [--json]`: the packs installed under `<data-dir>/profiles/`, each
 * validated, with its root role and roles.
 */
import { formatTable } from '../../foundation/text/index.js';
import { hasErrors, listPacks, loadRegistry } from '../../index.js';
import { loadPack, profilesDir, checkGrants, registryInputs } from '../../config/profile/index.js';
import {
  parseCommand,
  printCaughtError,
  printDiagnostics,
  printHelp,
  printJson,
} from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo profile list [--json]

List the profile packs installed in <data-dir>/profiles/ with their root role, roles and
description. A pack that no longer validates is marked INVALID; one whose grants do not resolve
against the current registry (a server removed or renamed, a tool no longer in enabled_tools)
is marked GRANTS (\`profile doctor NAME\` says which).
Exit status: 0 listed (invalid packs included), 1 the data directory cannot be read.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 0, max: 0 });
  if (cmd.help) return printHelp(io, USAGE);
  let packs;
  const unresolved = new Set<string>();
  try {
    packs = await listPacks(cmd.dirs.dataDir);
    const registry = await loadRegistry(cmd.dirs.configDir);
    const { definitions, invalidServers } = registryInputs(registry);
    for (const pack of packs.filter((p) => p.valid)) {
      const loaded = (await loadPack(pack.path)).pack;
      if (loaded === undefined) continue;
      if (hasErrors(checkGrants(loaded, definitions, undefined, { invalidServers }))) {
        unresolved.add(pack.name);
      }
    }
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
  if (cmd.json) {
    printJson(io, {
      profiles: packs.map((p) => ({
        name: p.name,
        path: p.path,
        valid: p.valid,
        grants_resolve: p.valid && !unresolved.has(p.name),
        ...(p.description !== undefined ? { description: p.description } : {}),
        ...(p.root !== undefined ? { root: p.root } : {}),
        roles: p.roles,
        diagnostics: p.diagnostics,
      })),
    });
    return EXIT_OK;
  }
  printDiagnostics(
    io,
    packs.flatMap((p) => p.diagnostics),
  );
  if (packs.length === 0) {
    io.stdout(
      `no profile packs installed in ${profilesDir(cmd.dirs.dataDir)}; install one with codex-mmo profile install DIR\n`,
    );
    return EXIT_OK;
  }
  const rows = packs.map((p) => [
    p.name,
    !p.valid ? 'INVALID' : unresolved.has(p.name) ? 'GRANTS' : 'ok',
    p.root ?? '-',
    p.roles.join(', ') || '-',
    p.description ?? '',
  ]);
  io.stdout(formatTable(['NAME', 'STATUS', 'ROOT', 'ROLES', 'DESCRIPTION'], rows));
  return EXIT_OK;
}
