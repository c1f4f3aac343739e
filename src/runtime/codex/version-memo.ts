/**
 * Remembers what `codex --version` printed for one binary file, so a session start need not run
 * it again: entries in `<data>/codex-versions/<key>.json` are keyed by a SHA-256 over the binary's
 * real path, device, inode, size and modification and change times, so any change to the file
 * (an upgrade, a rebuild, a replacement) misses and the binary is asked again.
 */
import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { readJsonEntry } from '../../config/registry/read-config-file.js';
import { writeFileAtomic } from '../../foundation/paths/atomic-write.js';
import { MEMO_ENTRIES_KEPT, pruneEntries } from '../../foundation/paths/prune-entries.js';

/** Directory of the entries inside the data dir. */
export const VERSION_MEMO_DIR = 'codex-versions';
const FORMAT = 'codex-mmo-codex-version/1';

/** The entry's key for the binary at `path`; undefined when the file cannot be looked at. */
export async function versionMemoKey(path: string): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    const info = await stat(real, { bigint: true });
    if (!info.isFile()) return undefined;
    const parts = [real, info.dev, info.ino, info.size, info.mtimeNs, info.ctimeNs];
    return createHash('sha256').update(parts.map(String).join('\0')).digest('hex');
  } catch {
    return undefined;
  }
}

/** The remembered output of `--version` for this key, if any. */
export async function readVersionMemo(dataDir: string, key: string): Promise<string | undefined> {
  // a regular file only: a named pipe planted there would otherwise hold the start forever
  const entry = await readJsonEntry(join(dataDir, VERSION_MEMO_DIR, `${key}.json`));
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { format, output } = entry as Record<string, unknown>;
  return format === FORMAT && typeof output === 'string' ? output : undefined;
}

/** Remembers `output` for this key; a memo that cannot be written is simply not kept. */
export async function writeVersionMemo(
  dataDir: string,
  key: string,
  output: string,
): Promise<void> {
  await writeFileAtomic(
    join(dataDir, VERSION_MEMO_DIR, `${key}.json`),
    `${JSON.stringify({ format: FORMAT, output })}\n`,
    0o600,
    { durable: false },
  ).catch(() => undefined);
  // an entry per Codex binary: the newest few are all a machine needs
  await pruneEntries(join(dataDir, VERSION_MEMO_DIR), MEMO_ENTRIES_KEPT);
}
