/**
 * `pruneSnapshots`: removes stored snapshots under `<data>/snapshots/` that nothing references.
 * The caller says what is referenced (snapshots of session records and of installed packs); a
 * snapshot stored within the grace period is kept too, since a launch that just compiled it may
 * not have written its session record yet. Removal renames the directory to a hidden name first,
 * so a reader never sees half a snapshot.
 */
import { randomBytes } from 'node:crypto';
import { readdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { removeTree } from '../../foundation/paths/remove-tree.js';
import { snapshotsDir } from './snapshot-store.js';

const HEX_ID = /^[0-9a-f]{64}$/;

/** Snapshots younger than this are kept: a launch in progress may be about to record one. */
export const SNAPSHOT_PRUNE_GRACE_MS = 60 * 60 * 1000;

export interface PruneSnapshotsOptions {
  readonly dataDir: string;
  /** `sha256:<hex>` ids that are referenced and must stay. */
  readonly referenced: ReadonlySet<string>;
  readonly now: Date;
  readonly graceMs?: number;
}

export interface PruneSnapshotsResult {
  readonly removed: readonly string[];
  readonly kept: readonly { readonly id: string; readonly reason: 'referenced' | 'too-recent' }[];
}

export async function pruneSnapshots(
  options: PruneSnapshotsOptions,
): Promise<PruneSnapshotsResult> {
  const root = snapshotsDir(options.dataDir);
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { removed: [], kept: [] };
    throw error;
  }
  const grace = options.graceMs ?? SNAPSHOT_PRUNE_GRACE_MS;
  const removed: string[] = [];
  const kept: { id: string; reason: 'referenced' | 'too-recent' }[] = [];
  for (const hex of names.filter((n) => HEX_ID.test(n)).sort()) {
    const id = `sha256:${hex}`;
    if (options.referenced.has(id)) {
      kept.push({ id, reason: 'referenced' });
      continue;
    }
    const dir = join(root, hex);
    let mtime: number;
    try {
      mtime = (await stat(dir)).mtimeMs;
    } catch {
      continue;
    }
    if (options.now.getTime() - mtime < grace) {
      kept.push({ id, reason: 'too-recent' });
      continue;
    }
    const hidden = join(root, `.pruning-${hex}-${randomBytes(4).toString('hex')}`);
    try {
      await rename(dir, hidden);
    } catch {
      continue;
    }
    await removeTree(hidden);
    removed.push(id);
  }
  return { removed, kept };
}
