/**
 * Temporary directories for tests, removed after each test file: `const dir = await tmpDir()`.
 * Read-only trees inside them (installed packs, stored snapshots) are made writable first, so
 * removal also works for a user without the power to delete from read-only directories.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

import { removeTree } from '../../src/config/profile/pack-store.js';

const created: string[] = [];

// outside Vitest (the scenario matrix script) the caller removes what it creates
if (process.env.VITEST !== undefined) {
  afterAll(async () => {
    await Promise.all(created.map((d) => removeTree(d)));
  });
}

export async function tmpDir(prefix = 'codex-mmo-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}
