/**
 * How Codex starts `mmo_mesh`: the Node binary running codex-mmo's CLI with absolute paths,
 * `<node> <dist/cli/main.js> mesh serve --session DIR --process ROLE [--participant ID]`, and the
 * check that the CLI entry is really there before a session relies on it.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { MeshLaunch } from '../../config/compile/types.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';

/** The CLI entry of this installation (`dist/cli/main.js`), absolute. */
export function cliEntryPath(): string {
  // the package root is the parent of the `src` or `dist` folder this module is in, at whatever
  // depth: src/runtime/mesh/, dist/runtime/mesh/ as tsc wrote it, or dist/chunks/ when bundled
  let dir = dirname(fileURLToPath(import.meta.url));
  while (basename(dir) !== 'src' && basename(dir) !== 'dist' && dirname(dir) !== dir) {
    dir = dirname(dir);
  }
  return join(dirname(dir), 'dist', 'cli', 'main.js');
}

/** The command prefix that runs the codex-mmo CLI: this Node binary and the CLI entry. */
export function defaultCliLaunch(nodePath: string = process.execPath): MeshLaunch {
  return { command: nodePath, args: [cliEntryPath()] };
}

/** The `mmo_mesh` command of one Codex process of a session. */
export function meshLaunchFor(
  cli: MeshLaunch,
  sessionDir: string,
  processRoot: string,
  participant?: string,
): MeshLaunch {
  const args = [...cli.args, 'mesh', 'serve', '--session', sessionDir, '--process', processRoot];
  if (participant !== undefined) args.push('--participant', participant);
  return { command: cli.command, args };
}

/**
 * An error when the CLI entry the `mmo_mesh` entries run (the first argument of `cli`) is not a
 * file: Codex would fail to start the server only later, and less clearly.
 */
export async function checkMeshCommand(cli: MeshLaunch): Promise<Diagnostic | undefined> {
  const entry = cli.args[0];
  if (entry === undefined) return undefined;
  const found = await stat(entry).then(
    (info) => info.isFile(),
    () => false,
  );
  if (found) return undefined;
  return diagnostic({
    code: 'mesh-command-not-found',
    message: `the mmo_mesh server runs ${entry}, which does not exist; build codex-mmo ('npm run build') or reinstall it`,
  });
}
