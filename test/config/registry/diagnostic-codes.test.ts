/**
 * The registry's code catalogue is complete and consistent: every code the registry and TOML
 * modules emit is catalogued, each catalogued code is tested somewhere, diagnostics carry the
 * catalogue's severity, and no code means one thing to the registry and another to the probe.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { PROBE_CODES } from '../../../src/runtime/probe/diagnostic-codes.js';
import { REGISTRY_CODES } from '../../../src/config/registry/diagnostic-codes.js';
import { loadCredentials } from '../../../src/config/registry/credentials.js';
import { loadRegistry } from '../../../src/config/registry/load-registry.js';
import { validateRegistry } from '../../../src/config/registry/validate-registry.js';
import { configWith, fragment } from '../../support/registry-helpers.js';

/** Codes written in a source file: `code: 'x'`, `report('x'`, `registryDiagnostic('x'`. */
function codesIn(text: string): string[] {
  const patterns = [/code: '([a-z0-9-]+)'/g, /(?:report|registryDiagnostic)\(\s*'([a-z0-9-]+)'/g];
  return patterns.flatMap((p) => [...text.matchAll(p)].map((m) => m[1] ?? ''));
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

describe('registry diagnostic codes', () => {
  it('catalogues every code emitted under src/config/registry and src/foundation/toml', async () => {
    const emitted = new Set<string>();
    for (const dir of ['src/config/registry', 'src/foundation/toml']) {
      for (const name of await readdir(dir)) {
        if (name === 'diagnostic-codes.ts') continue;
        for (const code of codesIn(await readFile(join(dir, name), 'utf8'))) emitted.add(code);
      }
    }
    expect(emitted.size).toBeGreaterThan(40);
    const uncatalogued = [...emitted].filter((code) => !Object.hasOwn(REGISTRY_CODES, code));
    expect(uncatalogued).toEqual([]);
  });

  it('has a test naming each code that the fixture corpus does not cover', async () => {
    const tests = await Promise.all(
      (await filesUnder('test')).filter((f) => f.endsWith('.ts')).map((f) => readFile(f, 'utf8')),
    );
    const text = tests.join('\n');
    const untested = Object.entries(REGISTRY_CODES)
      .filter(([code, info]) => info.stage !== 'fragment' && !text.includes(`'${code}'`))
      .map(([code]) => code);
    expect(untested).toEqual([]);
  });

  it('documents every registry and probe code in docs/diagnostics.md with its severity', async () => {
    const doc = await readFile('docs/diagnostics.md', 'utf8');
    const catalogued = [...Object.entries(REGISTRY_CODES), ...Object.entries(PROBE_CODES)];
    const wrong = catalogued
      .filter(([code, info]) => {
        const row = new RegExp(`^\\| \`${code}\` \\| ([a-z /]+) \\|`, 'm').exec(doc);
        return row?.[1]?.includes(info.severity) !== true;
      })
      .map(([code]) => code);
    expect(wrong).toEqual([]);
  });

  it('shares no code with the probe catalogue', () => {
    const shared = Object.keys(REGISTRY_CODES).filter((code) => Object.hasOwn(PROBE_CODES, code));
    expect(shared).toEqual([]);
  });

  it('gives load, credential and readiness diagnostics the severity of their code', async () => {
    const dir = await configWith({
      '10-a.toml': fragment('a', 'env_vars = ["A_MISSING"]\ncwd = "/nonexistent-cwd-4f1"\n'),
      '20-b.toml': fragment('b', '', 'no-such-command-9d2'),
      '30-big.toml': `# ${'x'.repeat(1024 * 1024)}\n`,
    });
    const registry = await loadRegistry(dir);
    const credentials = await loadCredentials(join(dir, 'credentials.env'), {});
    const result = await validateRegistry(registry, credentials, {
      env: { PATH: '/usr/bin' },
      home: '/h',
    });
    const codes = result.diagnostics.map((d) => d.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        'fragment-too-large',
        'missing-env-var',
        'cwd-not-found',
        'command-not-found',
      ]),
    );
    for (const d of result.diagnostics) {
      const info = (REGISTRY_CODES as Record<string, { severity: string } | undefined>)[d.code];
      expect(info?.severity, d.code).toBe(d.severity);
    }
  });
});
