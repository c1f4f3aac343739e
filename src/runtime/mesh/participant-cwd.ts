/**
 * Where a participant may work (docs/design.md §9): the session's working directory or a directory
 * below it, symlinks resolved, and never the config, data or state dir or a Codex home, nor a
 * directory holding one of them (a writable sandbox there would reach it). A refusal names the
 * rule.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';

import { MeshError } from '../protocol/mesh-protocol.js';

function within(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function real(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

/**
 * The real path of the participant's working directory `requested`, or a MeshError `refused`
 * (`invalid` when it is not an existing absolute directory).
 */
export async function checkParticipantCwd(
  requested: string,
  sessionCwd: string,
  forbidden: readonly { readonly name: string; readonly path: string }[],
): Promise<string> {
  if (!isAbsolute(requested)) {
    throw new MeshError('invalid', `cwd '${requested}' must be an absolute path`);
  }
  const info = await stat(requested).catch(() => undefined);
  if (info?.isDirectory() !== true) {
    throw new MeshError('invalid', `cwd '${requested}' is not an existing directory`);
  }
  const cwd = await real(requested);
  const root = await real(sessionCwd);
  if (!within(cwd, root)) {
    throw new MeshError(
      'refused',
      `cwd '${requested}' is outside the session's working directory ${root}: a participant works in that directory or one below it (symlinks resolved)`,
    );
  }
  for (const dir of forbidden) {
    const path = await real(dir.path);
    if (within(cwd, path) || within(path, cwd)) {
      throw new MeshError(
        'refused',
        `cwd '${requested}' is or holds the ${dir.name} (${path}): a participant never works in codex-mmo's config, data or state dir or a Codex home`,
      );
    }
  }
  return cwd;
}
