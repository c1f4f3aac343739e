/**
 * How Codex starts `mmo_mesh`: the Node binary running codex-mmo's CLI with absolute paths,
 * `<node> <dist/cli/main.js> mesh serve --session DIR --process ROLE [--participant ID]`.
 */
import { fileURLToPath } from 'node:url';

import type { MeshLaunch } from '../compile/types.js';

/** The CLI entry of this installation (`dist/cli/main.js`), absolute. */
export function cliEntryPath(): string {
  // two levels up from src/mesh/ or dist/mesh/ is the package root
  return fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
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
