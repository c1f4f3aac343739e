/**
 * `codex-mmo --version [--json]` names the Codex a session would use, found the way sessions
 * find it (`--codex-bin`, `$CODEX_MMO_CODEX_BIN`, PATH), and whether its version is supported.
 */
import { writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { VERSION } from '../../../src/foundation/version.js';
import { runCli } from '../../support/cli.js';
import { TEST_CODEX_BIN, TEST_CODEX_BIN_DIR, TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { tmpDir } from '../../support/tmp.js';

interface VersionJson {
  version: string;
  codex: { path: string | null; version: string | null; supported: boolean; error?: string };
}

const PATH = `${TEST_CODEX_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`;

describe(`Codex ${TEST_CODEX_SERIES}: --version`, () => {
  it(`Codex ${TEST_CODEX_SERIES}: names the codex on PATH and calls it supported`, async () => {
    const r = await runCli(['--version', '--json'], { env: { PATH, HOME: '/nonexistent' } });
    expect(r.code).toBe(0);
    const out = r.json<VersionJson>();
    expect(out.version).toBe(VERSION);
    expect(out.codex.path).toBe(TEST_CODEX_BIN);
    expect(out.codex.version?.startsWith(`${TEST_CODEX_SERIES}.`)).toBe(true);
    expect(out.codex.supported).toBe(true);

    const text = await runCli(['--version'], { env: { PATH, HOME: '/nonexistent' } });
    expect(text.stdout).toMatch(new RegExp(`^codex-mmo ${VERSION.replaceAll('.', '\\.')}\\n`));
    expect(text.stdout).toContain(
      `codex: ${TEST_CODEX_BIN} (version ${out.codex.version}, supported)`,
    );
  });

  it('prefers --codex-bin over $CODEX_MMO_CODEX_BIN over PATH, and reports untested versions', async () => {
    const dir = await tmpDir();
    const fake = join(dir, 'codex-fake');
    await writeFile(fake, '#!/bin/sh\necho codex-cli 0.180.2\n', { mode: 0o755 });
    const env = { PATH, HOME: '/nonexistent', CODEX_MMO_CODEX_BIN: fake };
    const fromEnv = (await runCli(['--json', '--version'], { env })).json<VersionJson>();
    expect(fromEnv.codex).toEqual({ path: fake, version: '0.180.2', supported: false });
    const text = await runCli(['--version'], { env });
    expect(text.stdout).toContain('untested: supported are 0.149.x, 0.171.x');

    const flag = await runCli(['--version', '--json', '--codex-bin', TEST_CODEX_BIN], { env });
    expect(flag.json<VersionJson>().codex).toMatchObject({ path: TEST_CODEX_BIN, supported: true });
  });

  it('still exits 0 without a Codex, saying why', async () => {
    const r = await runCli(['--version', '--json'], { env: { PATH: '/nonexistent', HOME: '/x' } });
    expect(r.code).toBe(0);
    expect(r.json<VersionJson>().codex).toEqual({
      path: null,
      version: null,
      supported: false,
      error: '`codex` is not on PATH',
    });
  });
});
