/**
 * The remembered `codex --version` output: an entry written is read back for its key; an entry
 * of another format, not JSON, or a named pipe in its place (which would hold a start forever if
 * it were opened for reading) is no entry.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import {
  readVersionMemo,
  VERSION_MEMO_DIR,
  writeVersionMemo,
} from '../../../src/runtime/codex/version-memo.js';

let data = '';
afterAll(async () => {
  if (data !== '') await rm(data, { recursive: true, force: true });
});

describe('version memo', () => {
  it('reads back what it wrote, and nothing from a file that is not an entry', async () => {
    data = await mkdtemp(join(tmpdir(), 'mmo-version-memo-'));
    await writeVersionMemo(data, 'k1', 'codex-cli 0.171.0');
    expect(await readVersionMemo(data, 'k1')).toBe('codex-cli 0.171.0');
    expect(await readVersionMemo(data, 'k2')).toBeUndefined();
    const dir = join(data, VERSION_MEMO_DIR);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'k3.json'), '{"format":"other/1","output":"codex-cli 9"}');
    expect(await readVersionMemo(data, 'k3')).toBeUndefined();
    await writeFile(join(dir, 'k4.json'), 'not json');
    expect(await readVersionMemo(data, 'k4')).toBeUndefined();
    execFileSync('mkfifo', [join(dir, 'k5.json')]);
    expect(await readVersionMemo(data, 'k5')).toBeUndefined();
  });
});
