/**
 * Installed packs under `<data>/profiles/<name>/`: installing (validate first, copy the pack's
 * files read-only through a temporary directory and a rename), listing, and finding a pack by
 * installed name or by path.
 */
import { randomBytes } from 'node:crypto';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  stat,
  writeFile,
} from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import { IoError, describeError } from '../../foundation/errors.js';
import { pseudoFilesystemOf } from '../../foundation/paths/special-filesystem.js';
import { loadPack, type LoadedPack } from './load-pack.js';
import { PACK_FILE, PACK_NAME_PATTERN } from './pack-fields.js';
import { removeTree } from '../../foundation/paths/remove-tree.js';

/** Mode of installed files and directories: read-only, for the operator only. */
export const INSTALLED_FILE_MODE = 0o400;
export const INSTALLED_DIR_MODE = 0o500;

export interface InstallResult {
  /** The pack's name, when its profile.toml could be read. */
  readonly name: string | undefined;
  /** Where the pack is installed (absent when installation was refused). */
  readonly path: string | undefined;
  /** Whether files were written (false for an identical pack already installed). */
  readonly created: boolean;
  /** Whether a different installed pack of the same name was replaced (`--force`). */
  readonly replaced: boolean;
  readonly diagnostics: Diagnostic[];
}

/** `<data>/profiles`. */
export function profilesDir(dataDir: string): string {
  return join(resolve(dataDir), 'profiles');
}

/** Every regular file below `dir`, pack-relative with `/`, sorted; undefined if `dir` is unusable. */
async function listFiles(dir: string): Promise<string[] | undefined> {
  const out: string[] = [];
  const walk = async (sub: string): Promise<boolean> => {
    let entries;
    try {
      entries = await readdir(join(dir, sub), { withFileTypes: true });
    } catch {
      return false;
    }
    for (const entry of entries) {
      const rel = sub === '' ? entry.name : `${sub}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!(await walk(rel))) return false;
      } else if (entry.isFile()) {
        out.push(rel);
      } else {
        return false;
      }
    }
    return true;
  };
  return (await walk('')) ? out.sort() : undefined;
}

async function readContents(dir: string, files: readonly string[]): Promise<Map<string, Buffer>> {
  const contents = new Map<string, Buffer>();
  for (const rel of files) contents.set(rel, await readFile(join(dir, rel)));
  return contents;
}

async function sameContents(dir: string, contents: ReadonlyMap<string, Buffer>): Promise<boolean> {
  const files = await listFiles(dir);
  if (files?.length !== contents.size) return false;
  for (const rel of files) {
    const expected = contents.get(rel);
    if (expected === undefined) return false;
    try {
      if (!(await readFile(join(dir, rel))).equals(expected)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Writes `contents` into the fresh directory `dir` and makes the tree read-only. */
async function writeReadOnlyTree(
  dir: string,
  contents: ReadonlyMap<string, Buffer>,
): Promise<void> {
  const dirs = new Set<string>();
  for (const [rel, bytes] of contents) {
    const target = join(dir, rel);
    await mkdir(dirname(target), { recursive: true });
    for (let d = dirname(rel); d !== '.' && d !== ''; d = dirname(d)) dirs.add(d);
    await writeFile(target, bytes, { mode: 0o600 });
    await chmod(target, INSTALLED_FILE_MODE);
  }
  const deepestFirst = [...dirs].sort((a, b) => b.split('/').length - a.split('/').length);
  for (const d of deepestFirst) await chmod(join(dir, d), INSTALLED_DIR_MODE);
  await chmod(dir, INSTALLED_DIR_MODE);
}

/**
 * Installs the pack in `dir` as `<data>/profiles/<name>/`. An invalid pack is refused with its
 * diagnostics. An identical installed pack is left alone (`created: false`); a different one is
 * replaced only with `force`.
 */
export async function installPack(
  dir: string,
  dataDir: string,
  options: { force?: boolean } = {},
): Promise<InstallResult> {
  const loaded = await loadPack(dir);
  const pack = loaded.pack;
  if (pack === undefined) {
    return {
      name: undefined,
      path: undefined,
      created: false,
      replaced: false,
      diagnostics: loaded.diagnostics,
    };
  }
  const diagnostics = [...loaded.diagnostics];
  const name = pack.name;
  const root = profilesDir(dataDir);
  const target = join(root, name);
  const refuse = (code: string, message: string): InstallResult => ({
    name,
    path: undefined,
    created: false,
    replaced: false,
    diagnostics: [...diagnostics, diagnostic({ code, message, file: target })],
  });

  let contents: Map<string, Buffer>;
  try {
    contents = await readContents(pack.dir, loaded.files);
  } catch (error) {
    return refuse('pack-unreadable', `cannot read the pack's files: ${describeError(error)}`);
  }

  const pseudo = pseudoFilesystemOf(root);
  if (pseudo !== undefined) {
    return refuse(
      'special-filesystem',
      `the data directory ${resolve(dataDir)} is on ${pseudo}, a kernel pseudo-filesystem where packs cannot be stored; choose an ordinary directory with --data-dir or CODEX_MMO_DATA_DIR`,
    );
  }

  const exists = await lstat(target).then(
    () => true,
    () => false,
  );
  if (exists) {
    if (await sameContents(target, contents)) {
      return { name, path: target, created: false, replaced: false, diagnostics };
    }
    if (options.force !== true) {
      return refuse(
        'pack-exists',
        `a different pack named \`${name}\` is already installed at ${target}; rerun with --force to replace it (running sessions keep their snapshot)`,
      );
    }
  }

  let staging: string | undefined;
  let retired: string | undefined;
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
    staging = await mkdtemp(join(root, `.install-${name}-`));
    await writeReadOnlyTree(staging, contents);
    if (exists) {
      // a sibling name: moving a read-only directory to another parent is not allowed
      retired = join(root, `.replaced-${name}-${randomBytes(6).toString('hex')}`);
      await rename(target, retired);
    }
    await rename(staging, target);
    staging = undefined;
  } catch (error) {
    if (staging !== undefined) await removeTree(staging).catch(() => undefined);
    if (retired !== undefined) await rename(retired, target).catch(() => undefined);
    return refuse('install-failed', `cannot install the pack: ${describeError(error)}`);
  }
  if (retired !== undefined) await removeTree(retired).catch(() => undefined);
  return { name, path: target, created: true, replaced: exists, diagnostics };
}

export interface InstalledPack {
  /** Directory name under `<data>/profiles`. */
  readonly name: string;
  readonly path: string;
  readonly valid: boolean;
  readonly description?: string;
  readonly root?: string;
  readonly roles: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Every installed pack, sorted by name, each loaded and validated. No `<data>/profiles` means
 * none; one that cannot be read (not a directory, no permission) is an IoError.
 */
export async function listPacks(dataDir: string): Promise<InstalledPack[]> {
  const root = profilesDir(dataDir);
  let names: string[];
  try {
    names = (await readdir(root, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return [];
    throw new IoError(root, `cannot read the installed packs in ${root}: ${describeError(error)}`, {
      cause: error,
    });
  }
  const out: InstalledPack[] = [];
  for (const name of names) {
    const path = join(root, name);
    const loaded = await loadPack(path);
    const pack = loaded.pack;
    const diagnostics = [...loaded.diagnostics];
    if (pack !== undefined && pack.name !== name) {
      diagnostics.push(
        diagnostic({
          code: 'pack-name-mismatch',
          message: `installed under \`${name}\` but its profile.toml says name = "${pack.name}"; reinstall it with codex-mmo profile install`,
          file: pack.file,
        }),
      );
    }
    out.push({
      name,
      path,
      valid: pack !== undefined && pack.name === name,
      ...(pack?.description !== undefined ? { description: pack.description } : {}),
      ...(pack !== undefined ? { root: pack.root } : {}),
      roles: pack !== undefined ? Object.keys(pack.agents) : [],
      diagnostics,
    });
  }
  return out;
}

/** Names of the installed packs (directory names), sorted. */
export async function installedNames(dataDir: string): Promise<string[]> {
  try {
    return (await readdir(profilesDir(dataDir), { withFileTypes: true }))
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The pack directory `nameOrPath` designates: a path when it contains `/` or names an existing
 * pack directory (relative to `cwd`), otherwise the installed pack of that name. Undefined when
 * neither exists.
 */
export async function locatePack(
  nameOrPath: string,
  dataDir: string,
  cwd: string,
): Promise<string | undefined> {
  if (nameOrPath === '') return undefined;
  const asPath = resolve(cwd, nameOrPath);
  if (nameOrPath.includes('/') || nameOrPath === '.' || nameOrPath === '..') {
    return (await isDirectory(asPath)) ? asPath : undefined;
  }
  const installed = PACK_NAME_PATTERN.test(nameOrPath)
    ? join(profilesDir(dataDir), nameOrPath)
    : undefined;
  const installedExists = installed !== undefined && (await isDirectory(installed));
  if (await isDirectory(asPath)) {
    // a directory that is not a pack does not hide the installed pack of the same name
    const isPack = await stat(join(asPath, PACK_FILE)).then(
      () => true,
      () => false,
    );
    if (isPack || !installedExists) return asPath;
  }
  return installedExists ? installed : undefined;
}

/**
 * A `profile-not-found` diagnostic, suggesting an installed name when one is close. When
 * `nameOrPath` (relative to `cwd`) names a file, for instance the pack's own profile.toml, it
 * says to give the directory instead.
 */
export async function packNotFound(
  nameOrPath: string,
  dataDir: string,
  cwd?: string,
): Promise<Diagnostic> {
  if (cwd !== undefined && nameOrPath !== '') {
    const asPath = resolve(cwd, nameOrPath);
    const isFile = await stat(asPath).then(
      (info) => !info.isDirectory(),
      () => false,
    );
    if (isFile) {
      const hint =
        basename(asPath) === PACK_FILE
          ? `give the directory that holds it: ${dirname(asPath)}`
          : `a pack is a directory holding ${PACK_FILE}`;
      return diagnostic({
        code: 'profile-not-found',
        message: `${asPath} is a file, not a pack directory; ${hint}`,
        file: asPath,
      });
    }
  }
  const names = await installedNames(dataDir);
  const guess = suggest(nameOrPath, names);
  const known = names.length > 0 ? `installed packs: ${names.join(', ')}` : 'no pack is installed';
  return diagnostic({
    code: 'profile-not-found',
    message: `no profile \`${nameOrPath}\`: it is neither an installed pack nor a pack directory${guess !== undefined ? `; did you mean \`${guess}\`?` : ''} (${known}; install one with codex-mmo profile install DIR, or give a path to a directory holding ${PACK_FILE})`,
  });
}

/** Finds and loads a pack by installed name or path; `profile-not-found` when neither exists. */
export async function openPack(
  nameOrPath: string,
  dataDir: string,
  cwd: string,
): Promise<{ dir: string | undefined; loaded: LoadedPack }> {
  const dir = await locatePack(nameOrPath, dataDir, cwd);
  if (dir === undefined) {
    return {
      dir,
      loaded: {
        pack: undefined,
        diagnostics: [await packNotFound(nameOrPath, dataDir, cwd)],
        files: [],
      },
    };
  }
  return { dir, loaded: await loadPack(dir) };
}
