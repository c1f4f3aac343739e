/**
 * A memo directory keeps its newest entries: of the `*.json` regular files the `keep` most
 * recently written stay; older ones go; other files, directories and symbolic links are left
 * alone, and a missing directory is no error.
 */
import { mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { pruneEntries } from '../../../src/foundation/paths/prune-entries.js';
import { tmpDir } from '../../support/tmp.js';

describe('pruneEntries', () => {
  it('keeps the newest entries and nothing else is touched', async () => {
    const dir = await tmpDir();
    const now = Date.now() / 1000;
    for (let i = 0; i < 6; i++) {
      const file = join(dir, `e${String(i)}.json`);
      await writeFile(file, '{}');
      // e0 is the newest, e5 the oldest
      await utimes(file, now - i * 60, now - i * 60);
    }
    await writeFile(join(dir, 'notes.txt'), 'x');
    await utimes(join(dir, 'notes.txt'), now - 9999, now - 9999);
    await mkdir(join(dir, 'dir.json'));
    await symlink(join(dir, 'e0.json'), join(dir, 'link.json'));

    await pruneEntries(dir, 3);
    expect((await readdir(dir)).sort()).toEqual([
      'dir.json',
      'e0.json',
      'e1.json',
      'e2.json',
      'link.json',
      'notes.txt',
    ]);
    await pruneEntries(dir, 3);
    expect(await readdir(dir)).toHaveLength(6);
    await expect(pruneEntries(join(dir, 'absent'), 1)).resolves.toBeUndefined();
  });
});
