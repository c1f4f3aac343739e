/**
 * The mount points Codex's sandbox makes in a working directory on the host (`.git`, `.codex`, …:
 * the version table's `sandboxMountPoints`) outlive a command that is killed or, on 0.149,
 * interrupted. Before a process starts, the supervisor notes which of them are absent from its
 * working directory; when the session ends it removes those that are now empty, so nothing of the
 * session is left in the operator's directory and nothing of theirs is touched.
 */
import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** The paths among `cwd/<name>` that do not exist now. */
export async function absentMountPoints(cwd: string, names: readonly string[]): Promise<string[]> {
  const paths = names.map((name) => join(cwd, name));
  const present = await Promise.all(
    paths.map((path) =>
      lstat(path).then(
        () => true,
        () => false,
      ),
    ),
  );
  return paths.filter((_, i) => present[i] !== true);
}

/**
 * Removes each of `paths` that is an empty directory or an empty regular file (what the sandbox
 * leaves); anything with content is the model's or the operator's and stays. Returns what it
 * removed.
 */
export async function removeMountPointLeftovers(paths: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const path of new Set(paths)) {
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) continue;
    try {
      if (info.isDirectory() && (await readdir(path)).length === 0) {
        await rmdir(path);
        removed.push(path);
      } else if (info.isFile() && info.size === 0) {
        await unlink(path);
        removed.push(path);
      }
    } catch {
      // gone meanwhile, or no longer empty: leave it
    }
  }
  return removed;
}
