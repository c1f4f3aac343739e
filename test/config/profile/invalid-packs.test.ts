/**
 * The invalid-pack corpus: every directory under test/fixtures/profile/invalid/ holds a
 * profile.toml (plus any instruction files) and expected.json with the exact diagnostics.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { sortDiagnostics } from '../../../src/foundation/diagnostics/diagnostic.js';
import { loadPack } from '../../../src/config/profile/load-pack.js';

interface Expected {
  severity: string;
  code: string;
  line?: number;
  column?: number;
  path?: string;
  file?: string;
  message_includes?: string[];
}

const base = join(import.meta.dirname, '..', '..', 'fixtures', 'profile', 'invalid');
const cases = readdirSync(base).sort();

describe('invalid pack corpus', () => {
  it('has a broad corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  for (const name of cases) {
    it(name, async () => {
      const dir = join(base, name);
      const expected = (
        JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as { diagnostics: Expected[] }
      ).diagnostics;
      const result = await loadPack(dir);
      expect(result.pack).toBeUndefined();
      const actual = sortDiagnostics(result.diagnostics);
      expect(
        actual.map((d) => ({
          severity: d.severity,
          code: d.code,
          line: d.line,
          column: d.column,
          path: d.path,
          file:
            d.file === undefined
              ? undefined
              : d.file === join(dir, 'profile.toml')
                ? undefined
                : d.file.slice(dir.length + 1),
        })),
      ).toEqual(
        expected.map((e) => ({
          severity: e.severity,
          code: e.code,
          line: e.line,
          column: e.column,
          path: e.path,
          file: e.file,
        })),
      );
      expected.forEach((e, i) => {
        const d = actual[i]!;
        // every diagnostic names its file and says what to do, never a bare code
        expect(d.file).toBeDefined();
        expect(d.message.length).toBeGreaterThan(20);
        for (const fragment of e.message_includes ?? []) expect(d.message).toContain(fragment);
      });
    });
  }
});
