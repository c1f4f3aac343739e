/**
 * Moved secrets are appended to credentials.env (mode 0600, existing lines kept) quoted so the
 * registry's strict dotenv parser reads each value back exactly.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { parseDotenv } from '../../../src/config/registry/parse-dotenv.js';
import { appendCredentials, dotenvLine } from '../../../src/features/onboard/credentials-append.js';
import { tmpDir } from '../../support/tmp.js';

describe('appendCredentials', () => {
  it('keeps existing lines and adds values that parse back unchanged', async () => {
    const dir = await tmpDir();
    const file = join(dir, 'credentials.env');
    await writeFile(file, 'OLD=1', { mode: 0o644 });
    const values = new Map([
      ['A', 'plain'],
      ['B', "it's # quoted"],
      ['C', 'both \' and ` here "x"'],
      ['D', 'Basic dXNlcjpwYXNz'],
    ]);
    const done = await appendCredentials(file, values, 'moved by a test');
    expect(done).toEqual({ written: ['A', 'B', 'D'], unwritable: ['C'] });
    const bytes = await readFile(file);
    const parsed = parseDotenv(bytes);
    expect(parsed.problems).toEqual([]);
    expect({ ...parsed.values }).toEqual({
      OLD: '1',
      A: 'plain',
      B: "it's # quoted",
      D: 'Basic dXNlcjpwYXNz',
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('has no quoting for a value holding all three quotes and a backslash', () => {
    expect(dotenvLine('X', `'\`"\\`)).toBeUndefined();
  });
});
