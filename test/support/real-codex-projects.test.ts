/**
 * Every test file that runs real Codex (it imports the selected binary) is in the Vitest project
 * that repeats it on each supported Codex version.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

import { REAL_CODEX_TESTS } from '../../vitest.config.js';

const REPO = resolve(import.meta.dirname, '../..');
const USES_CODEX = /codex-bin\.js|support\/world\.js|'\.\/world\.js'|\bCODEX_BIN\b|PATH_WITH_CODEX/;

async function testFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'fixtures') out.push(...(await testFiles(path)));
    else if (entry.isFile() && entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

function covered(file: string): boolean {
  return REAL_CODEX_TESTS.some((glob) => {
    if (!glob.includes('*')) return glob === file;
    const prefix = glob.slice(0, glob.indexOf('*'));
    return file.startsWith(prefix);
  });
}

describe('real-Codex test files', () => {
  it('all run on every supported Codex version', async () => {
    const missing: string[] = [];
    for (const path of await testFiles(join(REPO, 'test'))) {
      const file = relative(REPO, path);
      if (file === 'test/support/real-codex-projects.test.ts') continue;
      if (USES_CODEX.test(await readFile(path, 'utf8')) && !covered(file)) missing.push(file);
    }
    expect(missing).toEqual([]);
  });
});
