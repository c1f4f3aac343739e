/**
 * Runs the registry fixture corpus: every `valid/*.toml` validates clean on its own, and every
 * `invalid/<case>/` directory (one or more fragments) yields exactly the diagnostics listed in its
 * `expected.json` (file, line, column, path, severity, code, server), in order; where a case has
 * a `statuses.json`, the IDs' validity and provenance match it. Together the cases use every code.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

import { buildRegistry } from '../../../src/config/registry/build-registry.js';
import { REGISTRY_CODES } from '../../../src/config/registry/diagnostic-codes.js';
import type { FragmentSource } from '../../../src/config/registry/types.js';

const root = resolve(import.meta.dirname, '../../fixtures/registry');

function sourcesOf(dir: string): FragmentSource[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.toml'))
    .map((name) => ({ file: join(dir, name), bytes: readFileSync(join(dir, name)) }));
}

interface Expected {
  file: string;
  line: number;
  column: number;
  severity: string;
  code: string;
  path?: string;
  server?: string;
}

describe('valid fragments', () => {
  const files = readdirSync(join(root, 'valid')).filter((n) => n.endsWith('.toml'));
  it('has a corpus', () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
  });
  for (const name of files) {
    it(`${name} validates clean`, () => {
      const file = join(root, 'valid', name);
      const registry = buildRegistry([{ file, bytes: readFileSync(file) }]);
      expect(registry.diagnostics).toEqual([]);
      expect(registry.statuses.every((s) => s.ok)).toBe(true);
      expect(registry.servers.size).toBe(registry.statuses.length);
    });
  }
});

describe('invalid fragments', () => {
  const cases = readdirSync(join(root, 'invalid')).sort();
  it('has a corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });
  for (const name of cases) {
    it(`${name} reports exactly its expected diagnostics`, () => {
      const dir = join(root, 'invalid', name);
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected[];
      const registry = buildRegistry(sourcesOf(dir));
      const actual = registry.diagnostics.map((d) => {
        const out: Expected = {
          file: basename(d.file ?? ''),
          line: d.line ?? -1,
          column: d.column ?? -1,
          severity: d.severity,
          code: d.code,
        };
        if (d.path !== undefined) out.path = d.path;
        if (d.server !== undefined) out.server = d.server;
        return out;
      });
      expect(actual).toEqual(expected);
      expect(expected.some((d) => d.severity === 'error')).toBe(true);
      for (const d of registry.diagnostics) {
        expect(d.message.length).toBeGreaterThan(20);
      }
      if (existsSync(join(dir, 'statuses.json'))) {
        const statuses = registry.statuses.map((status) => {
          const entry = registry.servers.get(status.id);
          return {
            ...status,
            file: basename(status.file),
            ...(entry ? { replaces: entry.replaces.map((f) => basename(f)) } : {}),
          };
        });
        expect(statuses).toEqual(JSON.parse(readFileSync(join(dir, 'statuses.json'), 'utf8')));
      }
    });
  }

  it('uses every fragment diagnostic code somewhere in the corpus', () => {
    const used = new Set<string>();
    for (const name of cases) {
      const file = join(root, 'invalid', name, 'expected.json');
      for (const d of JSON.parse(readFileSync(file, 'utf8')) as Expected[]) used.add(d.code);
    }
    // codes of reading files, credentials, readiness and lookups need a file system or an
    // environment; test/config/registry/diagnostic-codes.test.ts checks those are tested elsewhere
    const missing = Object.entries(REGISTRY_CODES)
      .filter(([code, info]) => info.stage === 'fragment' && !used.has(code))
      .map(([code]) => code);
    expect(missing).toEqual([]);
  });
});
