/**
 * The profile diagnostic code catalogue lists every code the profile modules emit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { PROFILE_DIAGNOSTIC_CODES } from '../../src/profile/diagnostic-codes.js';

const srcDir = join(import.meta.dirname, '..', '..', 'src', 'profile');
const patterns = [
  /code: '([a-z0-9-]+)'/g,
  /\breport\(\s*'([a-z0-9-]+)'/g,
  /\b(?:fail|problem|refuse)\(\s*'([a-z0-9-]+)'/g,
];

function emittedCodes(): Set<string> {
  const codes = new Set<string>();
  for (const name of readdirSync(srcDir)) {
    if (!name.endsWith('.ts') || name === 'diagnostic-codes.ts') continue;
    const text = readFileSync(join(srcDir, name), 'utf8');
    for (const pattern of patterns) for (const m of text.matchAll(pattern)) codes.add(m[1]!);
  }
  return codes;
}

describe('profile diagnostic codes', () => {
  it('catalogues every code emitted by src/profile', () => {
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
