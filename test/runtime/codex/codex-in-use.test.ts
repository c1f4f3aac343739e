/**
 * The Codex a command would use, classified against the version table, and the one
 * `codex-version-untested` warning for a version outside it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  codexInUse,
  codexVersionDiagnostics,
  untestedVersionDiagnostic,
} from '../../../src/runtime/codex/codex-in-use.js';
import { TEST_CODEX_BIN, TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { tmpDir } from '../../support/tmp.js';

async function fakeCodex(version: string): Promise<string> {
  const path = join(await tmpDir(), 'codex');
  await writeFile(path, `#!/bin/sh\necho codex-cli ${version}\n`, { mode: 0o755 });
  return path;
}

describe('codexInUse', () => {
  it(`Codex ${TEST_CODEX_SERIES}: the installed binary is supported and gets no warning`, async () => {
    const inUse = await codexInUse(TEST_CODEX_BIN, {
      PATH: process.env.PATH,
      HOME: '/nonexistent',
    });
    expect(inUse.detection.kind).toBe('found');
    expect(inUse.supported).toBe(true);
    expect(inUse.facts.series).toBe(TEST_CODEX_SERIES);
    expect(codexVersionDiagnostics(inUse)).toEqual([]);
  });

  it('warns once for a version outside the table, naming the row it is treated as', async () => {
    const path = await fakeCodex('0.160.4');
    const inUse = await codexInUse(path, {});
    expect(inUse).toMatchObject({ supported: false, facts: { series: '0.149' } });
    const warnings = codexVersionDiagnostics(inUse);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ severity: 'warning', code: 'codex-version-untested' });
    expect(warnings[0]!.message).toContain(`Codex 0.160.4 at ${path}`);
    expect(warnings[0]!.message).toContain('0.149.x, 0.171.x');
    expect(warnings[0]!.message).toContain('as for Codex 0.149');
    expect(warnings[0]!.message).toContain('npm install -g @openai/codex@0.171');
  });

  it('gives no version warning for a missing Codex (that is codex-not-found)', async () => {
    const inUse = await codexInUse('codex', { PATH: '/nonexistent' });
    expect(inUse.detection.kind).toBe('not-found');
    expect(inUse.facts.series).toBe('0.171');
    expect(codexVersionDiagnostics(inUse)).toEqual([]);
  });

  it('accepts every patch of a supported series', () => {
    expect(untestedVersionDiagnostic('/x/codex', '0.171.9')).toBeUndefined();
    expect(untestedVersionDiagnostic('/x/codex', '0.149.0')).toBeUndefined();
    expect(untestedVersionDiagnostic('/x/codex', '0.172.0')?.code).toBe('codex-version-untested');
  });
});
