/**
 * Temporary directories for profile tests that may hold read-only installed packs: removed after
 * the test file, making read-only trees writable first.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

import { removeTree } from '../../src/profile/pack-store.js';

const created: string[] = [];

afterAll(async () => {
  await Promise.all(created.map((d) => removeTree(d)));
});

export async function tmpDir(prefix = 'codex-mmo-profile-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Path of the example pack shipped under examples/packs/research. */
export const EXAMPLE_PACK = join(import.meta.dirname, '..', '..', 'examples', 'packs', 'research');

/** Path of the example operator configuration shipped under examples/config. */
export const EXAMPLE_CONFIG = join(import.meta.dirname, '..', '..', 'examples', 'config');
