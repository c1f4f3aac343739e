/**
 * The parts of a rendered Codex config that hold the session boundary against the model
 * (docs/design.md §9): the shell environment built from Codex's core variables with every
 * credential name and `CODEX_MMO_*` excluded, shell snapshots off, a filesystem permission profile
 * that denies reads of the operator's directories (the state dir with every process home in it
 * included), and every directory from the working directory up marked untrusted so no
 * project-local `.codex/config.toml` loads. Pure; measured on Codex 0.149 and 0.171
 * (docs/codex-versions.md).
 */
import { dirname } from 'node:path';

import type { Permissions } from '../profile/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';

/** Name of the permission profile every rendered config selects with `default_permissions`. */
export const PERMISSION_PROFILE = 'codex_mmo';

/** Every codex-mmo variable (the mesh credential and whatever comes after it). */
export const CODEX_MMO_ENV_PATTERN = 'CODEX_MMO_*';

/** The built-in Codex profile a role's permission level extends; full access has none. */
export const PROFILE_BASES: Readonly<Record<Permissions, string | undefined>> = {
  'read-only': ':read-only',
  'workspace-write': ':workspace',
  // Codex refuses to extend `:danger-full-access`: such a role cannot deny any read
  'full-access': undefined,
};

/**
 * Depth to which Codex expands the deny-read globs of missing directories before each sandboxed
 * command, should such a directory appear during the session: deep enough for a Codex home's
 * `sessions/<y>/<m>/<d>/rollout-….jsonl`.
 */
export const GLOB_SCAN_MAX_DEPTH = 10;

/** What a session's shells may not read. */
export interface ReadDeny {
  /**
   * Whole directories, each by one literal entry, which Codex's sandbox masks without scanning
   * them: the config dir, the data dir, the base Codex home and the state dir (every session's
   * records, logs and process homes, the process's own home included: its `auth.json` copy,
   * rollouts, state databases and Codex's PATH helper links).
   */
  readonly dirs: readonly string[];
  /**
   * Directories to deny that did not exist when the session started: denied by a glob over their
   * contents, which Codex expands before each sandboxed command. A literal entry for a missing
   * path makes Codex's sandbox create an empty mount-point file there, on the host, which stays
   * behind when the command is killed (measured on 0.149 and 0.171).
   */
  readonly absentDirs?: readonly string[];
  /**
   * The real paths of `dirs`, when a session's containers can hide them (their own mount
   * namespace) and none is absent: then a process that needs nothing else hidden gets no deny
   * entry at all (`maskedDirs`), which spares Codex's per-look-up sandbox.
   */
  readonly maskable?: readonly string[];
}

/** The session facts a boundary render needs; without them only the static parts are rendered. */
export interface BoundaryOptions {
  readonly deny: ReadDeny;
  /** Working directory of the process (real path): it and every directory above it are untrusted. */
  readonly cwd: string;
}

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `shell_environment_policy`: the operator's `set`/`include_only`, on top of Codex's core
 * variables (HOME, PATH, USER, …; `none` when the operator asked for that), Codex's own
 * KEY/SECRET/TOKEN excludes, and `exclude` extended by `CODEX_MMO_*` and every name given.
 */
export function shellEnvironmentPolicy(
  operator: unknown,
  excludedNames: readonly string[],
): TomlTable {
  const table: TomlTable = isTable(operator) ? { ...operator } : {};
  table.inherit = table.inherit === 'none' ? 'none' : 'core';
  table.ignore_default_excludes = false;
  const exclude: unknown[] = Array.isArray(table.exclude) ? [...(table.exclude as unknown[])] : [];
  for (const name of [CODEX_MMO_ENV_PATTERN, ...excludedNames]) {
    if (!exclude.includes(name)) exclude.push(name);
  }
  table.exclude = exclude;
  return table;
}

/** The base settings' `[features]` with shell snapshots off. */
export function featuresWithoutSnapshots(operator: unknown): TomlTable {
  return { ...(isTable(operator) ? operator : {}), shell_snapshot: false };
}

/** A literal path as a glob: metacharacters become one-character classes. */
export function globLiteral(path: string): string {
  return path.replace(/[*?[\]{}\\!]/g, (c) => `[${c}]`);
}

/**
 * The filesystem entries (`"path" = "deny"`) for a read deny. A literal entry costs Codex no scan
 * (its sandbox mounts an empty directory over the path); a glob is expanded before every start
 * and sandboxed command by walking its directory, matches files only, and misses files created
 * after that walk, so globs are kept for directories that do not exist yet.
 */
export function denyEntries(deny: ReadDeny): TomlTable {
  const entries: TomlTable = {};
  for (const dir of deny.dirs) entries[dir] = 'deny';
  for (const dir of deny.absentDirs ?? []) entries[`${globLiteral(dir)}/**`] = 'deny';
  if ((deny.absentDirs ?? []).length > 0) entries.glob_scan_max_depth = GLOB_SCAN_MAX_DEPTH;
  return entries;
}

/**
 * A role's sandbox: a permission profile extending the built-in one of its permission level with
 * the deny entries (and network for workspace-write), selected by `default_permissions`; for full
 * access the legacy `sandbox_mode = "danger-full-access"`, which cannot deny anything.
 */
export function sandboxSettings(
  permissions: Permissions,
  networkAccess: boolean,
  deny: ReadDeny | undefined,
  into: TomlTable,
): void {
  const base = PROFILE_BASES[permissions];
  if (base === undefined) {
    into.sandbox_mode = 'danger-full-access';
    return;
  }
  const profile: TomlTable = { extends: base };
  const filesystem = deny === undefined ? {} : denyEntries(deny);
  if (Object.keys(filesystem).length > 0) profile.filesystem = filesystem;
  if (permissions === 'workspace-write') profile.network = { enabled: networkAccess };
  into.default_permissions = PERMISSION_PROFILE;
  into.permissions = { [PERMISSION_PROFILE]: profile };
}

/** `[projects]` marking `cwd` and every directory above it untrusted. */
export function untrustedProjects(cwd: string): TomlTable {
  const projects: TomlTable = {};
  let dir = cwd;
  for (;;) {
    projects[dir] = { trust_level: 'untrusted' };
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return projects;
}
