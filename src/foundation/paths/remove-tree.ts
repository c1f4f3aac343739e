/**
 * Removing a tree that may hold read-only directories (installed packs, stored snapshots, ended
 * sessions): each directory is made writable by its owner first, since removing an entry needs a
 * writable parent.
 */
import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Removes `dir` and everything below it; a tree that is already gone is fine. */
export async function removeTree(dir: string): Promise<void> {
  const loosen = async (path: string): Promise<void> => {
    let entries;
    try {
      const info = await lstat(path);
      if (!info.isDirectory()) return;
      if ((info.mode & 0o700) !== 0o700) await chmod(path, (info.mode & 0o777) | 0o700);
      entries = await readdir(path, { withFileTypes: true });
    } catch {
      return; // gone, or not ours to change: rm below reports what really blocks removal
    }
    for (const entry of entries) {
      if (entry.isDirectory()) await loosen(join(path, entry.name));
    }
  };
  await loosen(dir);
  await rm(dir, { recursive: true, force: true });
}
