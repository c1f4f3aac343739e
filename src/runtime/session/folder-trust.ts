/**
 * Whether an interactive root may start in a folder marked trusted, so that Codex's TUI does not
 * ask about it (docs/design.md §9). Codex loads a trusted folder's `.codex` (its config with MCP
 * servers, hooks, exec policies) from the working directory and the directories above it, so the
 * root's host view shows each such `.codex` empty and read-only, and no shell of the session may
 * be able to make one where the view cannot blank it. Otherwise the folder stays untrusted.
 */
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { pathWithin } from '../../foundation/paths/path-within.js';
import { viewPrivateDirs } from '../../foundation/process/host-view.js';
import type { Permissions } from '../../config/profile/types.js';
import { codexFilesDir } from './process-view.js';
import { sandboxWritable } from './read-deny.js';

/** What decides it, real paths. */
export interface FolderTrustFacts {
  /** The root's working directory. */
  readonly cwd: string;
  /** What the root's view must still show besides it (its home, Codex's files). */
  readonly keep: readonly string[];
  /** The view's private directories (a tmpfs there, nothing reaches the host). */
  readonly privateDirs: readonly string[];
  /** Where any shell of the session can write (every role's `sandboxWritable`). */
  readonly writable: readonly string[];
  /** A role whose shell runs outside Codex's sandbox (full access), if any. */
  readonly unsandboxedRole?: string | undefined;
}

export type FolderTrust =
  | { readonly trusted: true; readonly blank: readonly string[] }
  | { readonly trusted: false; readonly reason: string };

type Kind = 'absent' | 'directory' | 'symlink' | 'other';

async function kindOf(path: string): Promise<Kind> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined) return 'absent';
  if (stats.isSymbolicLink()) return 'symlink';
  return stats.isDirectory() ? 'directory' : 'other';
}

function ancestors(cwd: string): string[] {
  const dirs = [cwd];
  for (let dir = cwd; dirname(dir) !== dir; dir = dirname(dir)) dirs.push(dirname(dir));
  return dirs;
}

/**
 * The `.codex` directories the view blanks when the folder is marked trusted, or why it stays
 * untrusted. `kind` tells what a path is (tested: the default looks without following links).
 */
export async function folderTrust(
  facts: FolderTrustFacts,
  kind: (path: string) => Promise<Kind> = kindOf,
): Promise<FolderTrust> {
  const refuse = (reason: string): FolderTrust => ({ trusted: false, reason });
  if (facts.unsandboxedRole !== undefined) {
    return refuse(`role '${facts.unsandboxedRole}' runs with full access and could write a .codex`);
  }
  const blank: string[] = [];
  for (const dir of ancestors(facts.cwd)) {
    const path = join(dir, '.codex');
    const inPrivate = dir !== facts.cwd && facts.privateDirs.some((p) => pathWithin(dir, p));
    const found = await kind(path);
    if (found === 'symlink') return refuse(`${path} is a symbolic link`);
    if (found === 'other') return refuse(`${path} is not a directory`);
    // inside a private directory the view makes it, on its own tmpfs
    if (found === 'directory' || inPrivate) blank.push(path);
    // the working directory's own is kept read-only by Codex's sandbox
    else if (dir !== facts.cwd && facts.writable.some((root) => pathWithin(dir, root))) {
      return refuse(`the session's shells can write in ${dir}`);
    }
  }
  const needed = [facts.cwd, ...facts.keep];
  const hides = blank.find((b) => needed.some((path) => pathWithin(path, b)));
  if (hides !== undefined) return refuse(`${hides} holds what the session needs`);
  return { trusted: true, blank };
}

/** A session whose root runs in the host view, as `sessionFolderTrust` weighs it. */
export interface SessionFolderFacts {
  /** The root's working directory (real path). */
  readonly cwd: string;
  /** The session's directory, the root's home inside it. */
  readonly sessionDir: string;
  readonly codexBin: string;
  /** The `$TMPDIR` the session's shells get, where set. */
  readonly tmpDir?: string | undefined;
  /** Every role of the profile: any of them may run, as the root or a participant. */
  readonly roles: readonly { readonly name: string; readonly permissions: Permissions }[];
}

/** `folderTrust` for a session's root in its host view. */
export async function sessionFolderTrust(facts: SessionFolderFacts): Promise<FolderTrust> {
  const keep = [facts.sessionDir, await codexFilesDir(facts.codexBin)];
  const writable = await Promise.all(
    facts.roles.map((role) => sandboxWritable(role.permissions, facts.cwd, facts.tmpDir)),
  );
  return folderTrust({
    cwd: facts.cwd,
    keep,
    privateDirs: viewPrivateDirs([facts.cwd, ...keep]),
    writable: [...new Set(writable.flat())],
    unsandboxedRole: facts.roles.find((role) => role.permissions === 'full-access')?.name,
  });
}
