/**
 * `codex-mmo tool-mcp validate [ID] [--json]`: validates the whole registry (or one server) and
 * the readiness of its entries — command resolution, working directory, referenced variables —
 * without launching anything. Exit 1 when any error is found.
 */
import { formatTable } from '../../foundation/text/index.js';
import { basename } from 'node:path';

import { configFiles, loadCredentials, summarize, validateRegistry } from '../../index.js';
import {
  loadRegistryCached,
  knownCredentials,
  fragmentCredentialLiterals,
  referencedEnvVars,
} from '../../config/registry/index.js';
import { checkPins, readLockFile } from '../../config/lock/index.js';
import {
  parseCommand,
  printDiagnostics,
  printHelp,
  printJson,
  skipOptimisingCompilers,
} from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';
import { registryCache } from '../registry-cache.js';

const USAGE = `Usage: codex-mmo tool-mcp validate [ID] [--json]

Validate the operator registry (<config-dir>/tool-mcp.d/*.toml) and credentials.env, and check
each server's readiness without launching it: the command resolves to an executable, cwd exists,
and every referenced environment variable is present in the environment or credentials.env.
Also checks, offline, each server against its pin in tool-mcp.lock (a definition changed since
the pin, enabled_tools the pinned server did not offer), that no literal holds a known
credential value (plain, base64, hex or URL-encoded), and warns about an unversioned package
run through npx or uvx.
With ID, report only that server and the fragment problems that affect it.
Exit status: 0 valid (warnings allowed), 1 errors found.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 0, max: 1 });
  if (cmd.help) return printHelp(io, USAGE);
  skipOptimisingCompilers();
  const onlyId = cmd.positionals[0];
  const [registry, credentials, lock] = await Promise.all([
    loadRegistryCached(cmd.dirs.configDir, registryCache(cmd.dirs)),
    loadCredentials(configFiles(cmd.dirs.configDir).credentials, io.env),
    readLockFile(cmd.dirs.configDir),
  ]);
  const referenced = [...registry.servers.values()].flatMap((e) => referencedEnvVars(e.definition));
  const known = knownCredentials(credentials.source, referenced);
  const result = await validateRegistry(registry, credentials, io, onlyId, [
    (entries) => Promise.resolve(fragmentCredentialLiterals(entries, known)),
    (entries, readiness) => checkPins(entries, lock, { env: io.env, home: io.home, readiness }),
    () =>
      Promise.resolve(
        lock.diagnostics.filter(
          (d) => onlyId === undefined || d.server === undefined || d.server === onlyId,
        ),
      ),
  ]);
  if (cmd.json) {
    printJson(io, { ok: result.ok, diagnostics: result.diagnostics, servers: result.servers });
    return result.ok ? EXIT_OK : EXIT_FAILURE;
  }
  printDiagnostics(io, result.diagnostics);
  if (result.servers.length > 0) {
    const rows = result.servers.map((s) => [
      s.id,
      s.transport ?? '-',
      s.ok ? 'ok' : 'ERROR',
      basename(s.file),
    ]);
    io.stdout(formatTable(['ID', 'TRANSPORT', 'STATUS', 'FILE'], rows));
  }
  const { errors, warnings } = summarize(result.diagnostics);
  const scope = onlyId !== undefined ? `server '${onlyId}'` : 'registry';
  const count =
    onlyId === undefined
      ? ` (${result.servers.length} server${result.servers.length === 1 ? '' : 's'})`
      : '';
  if (result.ok) {
    const warned = warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : '';
    io.stdout(`${scope} is valid and ready${count}${warned}\n`);
    return EXIT_OK;
  }
  io.stdout(`${scope} has ${errors} error${errors === 1 ? '' : 's'}${count}\n`);
  return EXIT_FAILURE;
}
