/**
 * The profile diagnostic code catalogue lists every code the profile modules emit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { PROFILE_DIAGNOSTIC_CODES } from '../../../src/config/profile/diagnostic-codes.js';

const SRC = join(import.meta.dirname, '..', '..', '..', 'src');
/** The profile modules: parsing and resolution, `profile doctor`, and the trust checks of a compile. */
const profileFiles = [
  ...['config/profile', 'features/profile'].flatMap((dir) =>
    readdirSync(join(SRC, dir)).map((name) => join(SRC, dir, name)),
  ),
  join(SRC, 'config', 'compile', 'trust-checks.ts'),
];
const patterns = [
  /code: '([a-z0-9-]+)'/g,
  /\breport\(\s*'([a-z0-9-]+)'/g,
  /\b(?:fail|problem|refuse)\(\s*'([a-z0-9-]+)'/g,
];

function emittedCodes(): Set<string> {
  const codes = new Set<string>();
  for (const file of profileFiles) {
    if (!file.endsWith('.ts') || file.endsWith('diagnostic-codes.ts')) continue;
    const text = readFileSync(file, 'utf8');
    for (const pattern of patterns) for (const m of text.matchAll(pattern)) codes.add(m[1]!);
  }
  return codes;
}

describe('profile diagnostic codes', () => {
  it('catalogues every code emitted by the profile modules', () => {
    const codes = emittedCodes();
    expect(codes.size).toBeGreaterThan(30);
    const missing = [...codes].filter((c) => !(c in PROFILE_DIAGNOSTIC_CODES));
    expect(missing).toEqual([]);
  });
  it('uses kebab-case codes with a meaning', () => {
    for (const [code, info] of Object.entries(PROFILE_DIAGNOSTIC_CODES)) {
      expect(code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(info.meaning.length).toBeGreaterThan(10);
    }
  });
});
