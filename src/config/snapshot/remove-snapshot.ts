/**
 * Removes one stored snapshot (`snapshot rm`): the directory is renamed to a hidden name first,
 * so a reader never sees half a snapshot, then deleted. Whether a session still uses it is the
 * caller's decision (it knows the session records).
 */
import { randomBytes } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';

import { IoError, describeError } from '../../foundation/errors.js';
import { removeTree } from '../../foundation/paths/remove-tree.js';
import { snapshotsDir } from './snapshot-store.js';

/** Removes `<data>/snapshots/<hex>`. Throws IoError when it cannot be moved aside. */
export async function removeSnapshot(dataDir: string, hex: string): Promise<void> {
  const root = snapshotsDir(dataDir);
  const dir = join(root, hex);
  const hidden = join(root, `.removing-${hex}-${randomBytes(4).toString('hex')}`);
  try {
    await rename(dir, hidden);
  } catch (error) {
    throw new IoError(dir, `cannot remove ${dir}: ${describeError(error)}`, { cause: error });
  }
  await removeTree(hidden);
}
