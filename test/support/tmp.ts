/**
 * Temporary directories for tests, removed after each test file: `const dir = await tmpDir()`.
 * Read-only trees inside them (installed packs, stored snapshots) are made writable first, so
 * removal also works for a user without the power to delete from read-only directories.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

import { removeTree } from '../../src/foundation/paths/remove-tree.js';

const created: string[] = [];

// outside Vitest (the scenario matrix script) the caller removes what it creates
if (process.env.VITEST !== undefined) {
  afterAll(async () => {
    await Promise.all(created.map((d) => removeTree(d)));
  });
}

/**
 * A place for test trees outside the system temporary directory (which workspace-write sandboxes
 * can write): the repository's ignored `node_modules/.cache`, or the user's `~/.cache` when the
 * repository itself lies in the temporary directory.
 */
function outsideTmp(): string {
  const inRepo = join(import.meta.dirname, '../../node_modules/.cache/codex-mmo-tests');
  const tmp = realpathSync(tmpdir());
  const repo = realpathSync(join(import.meta.dirname, '../..'));
  const underTmp = repo === tmp || repo.startsWith(`${tmp}/`) || repo.startsWith('/tmp/');
  return underTmp ? join(homedir(), '.cache', 'codex-mmo-tests') : inRepo;
}

export const OUTSIDE_TMP = outsideTmp();

export async function tmpDir(prefix = 'codex-mmo-test-', base = tmpdir()): Promise<string> {
  await mkdir(base, { recursive: true });
  const dir = await mkdtemp(join(base, prefix));
  created.push(dir);
  return dir;
}
