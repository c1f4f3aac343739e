/**
 * Keeps a memo directory small: of its `*.json` regular files, the `keep` most recently written
 * stay and the rest are removed. A memo entry is only ever a shortcut, so a removed one costs a
 * new probe at most; anything that cannot be read or removed is left as it is.
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** How many entries each of codex-mmo's memo directories keeps. */
export const MEMO_ENTRIES_KEPT = 16;

export async function pruneEntries(dir: string, keep: number): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const entries: { path: string; written: number }[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
    if (info?.isFile() === true) entries.push({ path, written: info.mtimeMs });
  }
  if (entries.length <= keep) return;
  entries.sort((a, b) => b.written - a.written);
  await Promise.all(entries.slice(keep).map((e) => unlink(e.path).catch(() => undefined)));
}
