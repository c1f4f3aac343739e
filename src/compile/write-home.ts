/**
 * Writes a rendered Codex home (`config.toml`, `agents/*.toml`) into a directory. Codex loads
 * every `agents/**\/*.toml` as a role, so a role file that is not part of the rendering is refused
 * rather than silently left to be loaded or silently deleted.
 */
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { CodexMmoError, IoError, describeError } from '../errors.js';
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

/**
 * Writes the files of `home` under `dir`, creating directories as needed: files private to the
 * user (0600), new directories 0700.
 */
export async function writeRenderedHome(home: RenderedHome, dir: string): Promise<void> {
  const existing = await stat(dir).catch(() => undefined);
  if (existing !== undefined && !existing.isDirectory()) {
    throw new IoError(
      dir,
      `${dir} is not a directory; give a directory to write the Codex home into (it is created when missing)`,
    );
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
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      await writeFile(file, text, { encoding: 'utf8', mode: 0o600 });
      await chmod(file, 0o600);
    } catch (error) {
      throw new IoError(file, `cannot write ${file}: ${describeError(error)}`, { cause: error });
    }
  }
}
