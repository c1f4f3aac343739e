import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { PROBE_CODES } from '../../../src/runtime/probe/diagnostic-codes.js';

describe('probe diagnostic codes', () => {
  it('catalogues every code the probe modules emit, with its severity', async () => {
    const emitted = new Set<string>();
    // the live probe and the offline pin and lock modules
    for (const dir of ['src/runtime/probe', 'src/config/lock']) {
      for (const name of await readdir(dir)) {
        const text = await readFile(join(dir, name), 'utf8');
        for (const match of text.matchAll(/code: '([a-z-]+)'/g)) emitted.add(match[1] ?? '');
        for (const match of text.matchAll(/'(probe-[a-z-]+)'/g)) emitted.add(match[1] ?? '');
      }
    }
    expect(emitted.size).toBeGreaterThan(8);
    for (const code of emitted) expect(Object.keys(PROBE_CODES)).toContain(code);
  });
});
