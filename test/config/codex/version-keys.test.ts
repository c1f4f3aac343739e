/**
 * Rendering for a Codex version keeps only the keys it accepts: a codex-base.toml setting that
 * only 0.171 knows is rendered for 0.171 and left out for 0.149 (with `codex-key-unsupported`),
 * and the rendered home passes the installed Codex's `--strict-config` either way.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { strictConfigCheck } from '../../../src/runtime/codex/codex-cli.js';
import {
  CODEX_VERSIONS,
  codexFacts,
  type CodexVersionFacts,
} from '../../../src/config/codex/codex-versions.js';
import {
  baseKeyDiagnostics,
  unacceptedKeys,
  withAcceptedKeys,
} from '../../../src/config/codex/version-keys.js';
import { renderAll } from '../../../src/config/compile/render-process.js';
import { writeRenderedHome } from '../../../src/config/compile/write-home.js';
import { TEST_CODEX_BIN, TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { tmpDir } from '../../support/tmp.js';
import { FIXTURES, loadFixture } from '../../support/load-fixture.js';

const row = (series: string): CodexVersionFacts => {
  const found = CODEX_VERSIONS.find((r) => r.series === series);
  if (found === undefined) throw new Error(`no row ${series}`);
  return found;
};

const CONFIG = {
  model: 'm',
  mcp_optional_startup_grace_ms: 500,
  mcp_servers: {
    a: { command: 'x', startup_readiness: 'connection', enabled: true },
    b: { url: 'u' },
  },
};

describe('unacceptedKeys / withAcceptedKeys', () => {
  it('finds nothing to drop for 0.171', () => {
    expect(unacceptedKeys(CONFIG, row('0.171'))).toEqual([]);
    expect(withAcceptedKeys(CONFIG, row('0.171'))).toBe(CONFIG);
  });

  it('drops the 0.171-only keys for 0.149 and nothing else', () => {
    expect(unacceptedKeys(CONFIG, row('0.149'))).toEqual([
      ['mcp_optional_startup_grace_ms'],
      ['mcp_servers', 'a', 'startup_readiness'],
    ]);
    expect(withAcceptedKeys(CONFIG, row('0.149'))).toEqual({
      model: 'm',
      mcp_servers: { a: { command: 'x', enabled: true }, b: { url: 'u' } },
    });
    // the input is not changed
    expect(CONFIG.mcp_servers.a.startup_readiness).toBe('connection');
  });

  it('warns codex-key-unsupported for a base key the version rejects', () => {
    const found = baseKeyDiagnostics(
      { mcp_optional_startup_grace_ms: 1 },
      '/c/codex-base.toml',
      row('0.149'),
    );
    expect(found).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'codex-key-unsupported',
        file: '/c/codex-base.toml',
        path: 'mcp_optional_startup_grace_ms',
      }),
    ]);
    expect(found[0]!.message).toContain('Codex 0.149');
    expect(baseKeyDiagnostics({ mcp_optional_startup_grace_ms: 1 }, 'f', row('0.171'))).toEqual([]);
  });
});

describe(`Codex ${TEST_CODEX_SERIES}: rendering for the detected version`, () => {
  it(`Codex ${TEST_CODEX_SERIES}: a base with a 0.171-only key renders strict-clean for this version`, async () => {
    const fixture = await loadFixture(join(FIXTURES, 'team/config'), join(FIXTURES, 'team/pack'));
    const snapshot = {
      ...fixture.snapshot,
      base: { ...fixture.snapshot.base, mcp_optional_startup_grace_ms: 750 },
    };
    const facts = codexFacts(`${TEST_CODEX_SERIES}.0`);
    for (const home of renderAll(snapshot, fixture.plan, {
      home: '/home/operator',
      codex: facts,
    })) {
      const config = home.files.get('config.toml') ?? '';
      expect(config.includes('mcp_optional_startup_grace_ms')).toBe(TEST_CODEX_SERIES === '0.171');
      const dir = await tmpDir();
      await writeRenderedHome(home, dir);
      const result = await strictConfigCheck(TEST_CODEX_BIN, dir, {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
      });
      expect(result.ok, `${home.process}: ${result.output}`).toBe(true);
    }
  });

  it(`Codex ${TEST_CODEX_SERIES}: rendering without a version renders for the newest`, async () => {
    const fixture = await loadFixture(join(FIXTURES, 'team/config'), join(FIXTURES, 'team/pack'));
    const snapshot = {
      ...fixture.snapshot,
      base: { ...fixture.snapshot.base, mcp_optional_startup_grace_ms: 750 },
    };
    const [first] = renderAll(snapshot, fixture.plan, { home: '/home/operator' });
    expect(first?.files.get('config.toml')).toContain('mcp_optional_startup_grace_ms = 750');
  });
});
