/**
 * Finding the Codex binary (explicit path, PATH search) and reading its version from the real
 * `codex --version`.
 */
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  detectCodex,
  findCodex,
  locateCodex,
  parseCodexVersion,
} from '../../../src/runtime/codex/find-codex.js';
import { VERSION_MEMO_DIR } from '../../../src/runtime/codex/version-memo.js';
import { TEST_CODEX_BIN_DIR, TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { tmpDir } from '../../support/tmp.js';

const BIN = TEST_CODEX_BIN_DIR;
const PATH = [BIN, process.env.PATH ?? ''].join(delimiter);

describe('findCodex', () => {
  it('parses version output', () => {
    expect(parseCodexVersion('codex-cli 0.149.1\n')).toBe('0.149.1');
    expect(parseCodexVersion('codex 1.2.3-beta.4')).toBe('1.2.3-beta.4');
    expect(parseCodexVersion('no version here')).toBeUndefined();
  });

  it('finds the real Codex on PATH and reads its version', async () => {
    const found = await findCodex('codex', { PATH });
    expect(found?.path).toBe(join(BIN, 'codex'));
    expect(found?.version.startsWith(`${TEST_CODEX_SERIES}.`)).toBe(true);
  });

  it('uses an explicit path and reports a missing one', async () => {
    expect((await findCodex(join(BIN, 'codex'), { PATH }))?.path).toBe(join(BIN, 'codex'));
    const missing = await detectCodex('/nonexistent/codex', { PATH });
    expect(missing).toEqual({
      kind: 'not-found',
      reason: '/nonexistent/codex is not an executable file',
    });
    expect(await detectCodex('codex', { PATH: '/nonexistent' })).toMatchObject({
      kind: 'not-found',
    });
    expect(await findCodex('codex', {})).toBeUndefined();
  });

  it('skips relative PATH entries and non-executable files', async () => {
    const dir = await tmpDir();
    await mkdir(join(dir, 'bin'));
    await writeFile(join(dir, 'bin', 'codex'), '#!/bin/sh\necho codex-cli 9.9.9\n');
    expect(await locateCodex('codex', { PATH: join(dir, 'bin') })).toBeUndefined();
    await chmod(join(dir, 'bin', 'codex'), 0o755);
    expect(await locateCodex('codex', { PATH: `bin${delimiter}${join(dir, 'bin')}` })).toBe(
      join(dir, 'bin', 'codex'),
    );
    expect(await findCodex('codex', { PATH: join(dir, 'bin') })).toEqual({
      path: join(dir, 'bin', 'codex'),
      version: '9.9.9',
    });
  });

  it('reports a binary that fails or prints no version', async () => {
    const dir = await tmpDir();
    const failing = join(dir, 'codex-fail');
    await writeFile(failing, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    expect(await detectCodex(failing, { PATH: '/usr/bin:/bin' })).toMatchObject({
      kind: 'failed',
      path: failing,
    });
    const silent = join(dir, 'codex-silent');
    await writeFile(silent, '#!/bin/sh\necho hello\n', { mode: 0o755 });
    const result = await detectCodex(silent, { PATH: '/usr/bin:/bin' });
    expect(result).toMatchObject({ kind: 'failed' });
  });

  it('runs `codex --version` with only base names of the launch environment', async () => {
    const dir = await tmpDir();
    const probe = join(dir, 'codex-env');
    // the patch number says whether the canary variable reached the process
    await writeFile(
      probe,
      '#!/bin/sh\nif [ -n "$OPENAI_API_KEY$MMO_CANARY" ]; then echo codex-cli 1.0.9; else echo codex-cli 1.0.0; fi\n',
      { mode: 0o755 },
    );
    const env = {
      PATH: '/usr/bin:/bin',
      OPENAI_API_KEY: 'sk-canary-find-codex-0123456789',
      MMO_CANARY: 'canary-find-codex',
    };
    expect(await detectCodex(probe, env)).toEqual({
      kind: 'found',
      path: probe,
      version: '1.0.0',
      launch: { command: probe, env: {} },
    });
  });

  it('remembers what a binary file printed until that file changes', async () => {
    const dir = await tmpDir();
    const data = join(dir, 'data');
    const codex = join(dir, 'codex-counted');
    const runs = join(dir, 'runs');
    const script = (version: string): string =>
      `#!/bin/sh\necho run >> '${runs}'\necho codex-cli ${version}\n`;
    await writeFile(codex, script('0.171.0'), { mode: 0o755 });
    const count = async (): Promise<number> =>
      (await readFile(runs, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    const env = { PATH: '/usr/bin:/bin' };

    expect(await detectCodex(codex, env, dir, data)).toMatchObject({ version: '0.171.0' });
    expect(await detectCodex(codex, env, dir, data)).toMatchObject({ version: '0.171.0' });
    expect(await count()).toBe(1);
    expect(await readdir(join(data, VERSION_MEMO_DIR))).toHaveLength(1);
    // without a memo dir the binary is always asked (doctor, version)
    await detectCodex(codex, env, dir);
    expect(await count()).toBe(2);

    // an upgrade in place changes the file: it is asked again
    await writeFile(codex, script('0.172.0'), { mode: 0o755 });
    expect(await detectCodex(codex, env, dir, data)).toMatchObject({ version: '0.172.0' });
    expect(await count()).toBe(3);

    // a broken entry is not believed; a failing binary is not remembered
    for (const entry of await readdir(join(data, VERSION_MEMO_DIR))) {
      await writeFile(
        join(data, VERSION_MEMO_DIR, entry),
        '{"format":"other","output":"codex-cli 9.9.9"}',
      );
    }
    expect(await detectCodex(codex, env, dir, data)).toMatchObject({ version: '0.172.0' });
    expect(await count()).toBe(4);
    await writeFile(codex, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    expect(await detectCodex(codex, env, dir, data)).toMatchObject({ kind: 'failed' });
    expect(await detectCodex(codex, env, dir, data)).toMatchObject({ kind: 'failed' });
  });
});
