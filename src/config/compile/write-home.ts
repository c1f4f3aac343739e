/**
 * Writes a rendered Codex home (`config.toml`, `agents/*.toml`) into a directory. Codex loads
 * every `agents/**\/*.toml` as a role, so a role file that is not part of the rendering is refused
 * rather than silently left to be loaded or silently deleted. A symbolic link in the way is never
 * written through: it is refused, or replaced when overwriting is allowed.
 */
import { chmod, lstat, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { CodexMmoError, IoError, describeError } from '../../foundation/errors.js';
import type { RenderedHome } from './types.js';

async function strayRoleFiles(dir: string, expected: ReadonlySet<string>): Promise<string[]> {
  const agentsDir = join(dir, 'agents');
  let entries: string[];
  try {
    entries = await readdir(agentsDir, { recursive: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return [];
    throw new IoError(agentsDir, `cannot read ${agentsDir}: ${describeError(error)}`, {
      cause: error,
    });
  }
  return entries
    .filter((entry) => entry.endsWith('.toml'))
    .map((entry) => `agents/${entry.split('\\').join('/')}`)
    .filter((relative) => !expected.has(relative))
    .sort();
}

/** What stands at `path`: nothing, a directory, a regular file, a symbolic link or another kind. */
async function entryKind(path: string): Promise<'none' | 'dir' | 'file' | 'link' | 'other'> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return 'link';
    if (info.isDirectory()) return 'dir';
    return info.isFile() ? 'file' : 'other';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return 'none';
    throw new IoError(path, `cannot inspect ${path}: ${describeError(error)}`, { cause: error });
  }
}

/**
 * The paths below `dir` that writing `home` would replace: an existing file with other content,
 * and any symbolic link or non-directory where a file or directory of the rendering goes.
 */
async function conflicts(home: RenderedHome, dir: string): Promise<string[]> {
  const found = new Set<string>();
  for (const [relative, text] of home.files) {
    const parts = relative.split('/');
    let at = dir;
    let blocked = false;
    for (const part of parts.slice(0, -1)) {
      at = join(at, part);
      const kind = await entryKind(at);
      if (kind === 'none') break;
      if (kind !== 'dir') {
        found.add(at);
        blocked = true;
        break;
      }
    }
    if (blocked) continue;
    const file = join(dir, relative);
    const kind = await entryKind(file);
    if (kind === 'none') continue;
    if (kind === 'file') {
      const same = await readFile(file, 'utf8').then(
        (existing) => existing === text,
        () => false,
      );
      if (same) continue;
    }
    found.add(file);
  }
  return [...found].sort();
}

/** Removes a symbolic link or non-directory at `path` so a directory can be created there. */
async function clearForDirectory(path: string): Promise<void> {
  const kind = await entryKind(path);
  if (kind === 'link' || kind === 'file' || kind === 'other') await rm(path);
}

/**
 * Writes the files of `home` under `dir`, creating directories as needed: files private to the
 * user (0600), new directories 0700. With `overwrite: false` an existing file of other content
 * or a symbolic link in the way is refused before anything is written; otherwise it is replaced.
 * Either way nothing is written through a symbolic link.
 */
export async function writeRenderedHome(
  home: RenderedHome,
  dir: string,
  options: { readonly overwrite?: boolean } = {},
): Promise<void> {
  const existing = await stat(dir).catch(() => undefined);
  if (existing !== undefined && !existing.isDirectory()) {
    throw new IoError(
      dir,
      `${dir} is not a directory; give a directory to write the Codex home into (it is created when missing)`,
    );
  }
  if (options.overwrite === false) {
    const taken = await conflicts(home, dir);
    const first = taken[0];
    if (first !== undefined) {
      const what =
        (await entryKind(first)) === 'link'
          ? 'is a symbolic link, which is never written through'
          : 'already exists';
      throw new CodexMmoError(
        'io-error',
        `${first} ${what}${taken.length > 1 ? ` (and ${taken.length - 1} more in the way)` : ''}; rerun with --force to replace it, or choose an empty directory`,
      );
    }
  }
  const stray = await strayRoleFiles(dir, new Set(home.files.keys()));
  if (stray.length > 0) {
    // not a usage mistake but a conflict with what the directory holds: exit 1, not 2
    throw new CodexMmoError(
      'io-error',
      `${join(dir, stray[0] ?? '')} is not part of this rendering, and Codex would load it as a role` +
        `${stray.length > 1 ? ` (with ${stray.length - 1} more)` : ''}; remove it or render into an empty directory`,
    );
  }
  for (const [relative, text] of home.files) {
    const file = join(dir, relative);
    try {
      let at = dir;
      for (const part of relative.split('/').slice(0, -1)) {
        at = join(at, part);
        await clearForDirectory(at);
      }
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      // a fresh file: a symbolic link (or anything) at `file` is replaced, never followed
      await rm(file, { force: true });
      await writeFile(file, text, { encoding: 'utf8', mode: 0o600, flag: 'wx' });
      await chmod(file, 0o600);
    } catch (error) {
      throw new IoError(file, `cannot write ${file}: ${describeError(error)}`, { cause: error });
    }
  }
}
