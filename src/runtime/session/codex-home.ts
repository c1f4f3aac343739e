/**
 * Writes a process's private, writable Codex home: the rendered `config.toml` and role files,
 * plus a copy of the base Codex home's `auth.json` when there is one and the model provider
 * needs it. Nothing else of the base
 * home is copied — in particular never `.credentials.json`, which can hold OAuth credentials of
 * unrelated MCP servers. The copies are removed when their process ends; when the session ends,
 * each home keeps only its rendered configuration and Codex's rollouts (`session logs`).
 */
import { copyFile, chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { writeRenderedHome } from '../../config/compile/write-home.js';
import type { RenderedHome } from '../../config/compile/types.js';
import { IoError, describeError } from '../../foundation/errors.js';

export const AUTH_FILE = 'auth.json';

/** Copies `<baseCodexHome>/auth.json` into `home` (mode 0600); false when there is none. */
export async function copyAuth(baseCodexHome: string, home: string): Promise<boolean> {
  const source = join(baseCodexHome, AUTH_FILE);
  const target = join(home, AUTH_FILE);
  try {
    await copyFile(source, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw new IoError(source, `cannot copy ${source}: ${describeError(error)}`, { cause: error });
  }
  await chmod(target, 0o600);
  return true;
}

/**
 * Creates `dir` (0700), writes the rendered files and copies `auth.json` from `baseCodexHome`
 * (none without one: the model provider needs no such file).
 */
export async function writeProcessHome(
  rendered: RenderedHome,
  dir: string,
  baseCodexHome: string | undefined,
): Promise<{ authCopied: boolean }> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new IoError(dir, `cannot create ${dir}: ${describeError(error)}`, { cause: error });
  }
  await writeRenderedHome(rendered, dir);
  return {
    authCopied: baseCodexHome === undefined ? false : await copyAuth(baseCodexHome, dir),
  };
}

/** Removes the `auth.json` copy of one process home; a missing one is fine. */
export async function removeAuth(home: string): Promise<void> {
  await rm(join(home, AUTH_FILE), { force: true }).catch(() => undefined);
}

/** What an ended session's process home keeps: the rendered files and Codex's rollouts. */
export const KEPT_IN_ENDED_HOME: readonly string[] = ['config.toml', 'agents', 'sessions'];

/**
 * Clears every process home under `homesDir` (`<session>/homes`) of an ended session: removes the
 * `auth.json` copy and everything Codex created besides its rollouts (state databases, unpacked
 * skills, helper binaries, locks). Nothing of that is used after the session, and the deny-read
 * globs that Codex expands for every later session walk whatever ended sessions leave behind
 * (measured: each full ended home made a later session start about a second slower).
 */
export async function clearEndedHomes(homesDir: string): Promise<void> {
  const homes = await readdir(homesDir, { withFileTypes: true }).catch(() => []);
  await Promise.all(
    homes
      .filter((e) => e.isDirectory())
      .map(async (home) => {
        const dir = join(homesDir, home.name);
        const entries = await readdir(dir).catch(() => []);
        await Promise.all(
          entries
            .filter((name) => !KEPT_IN_ENDED_HOME.includes(name))
            .map((name) =>
              rm(join(dir, name), { recursive: true, force: true }).catch(() => undefined),
            ),
        );
      }),
  );
}
