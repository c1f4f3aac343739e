/**
 * A process's private Codex home on disk: the home and its `agents/` directory are 0700, the
 * rendered config, role files and the `auth.json` copy are 0600, and `.credentials.json` of the
 * base home is never copied.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeProcessHome } from '../../src/session/codex-home.js';
import { tmpDir } from '../helpers/tmp.js';

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

describe('writeProcessHome', () => {
  it('writes a home private to the user and copies only auth.json', async () => {
    const root = await tmpDir();
    const base = join(root, 'base');
    const home = join(root, 'homes', 'lead');
    await mkdir(base);
    await writeFile(join(base, 'auth.json'), '{"OPENAI_API_KEY":"sk-canary-home"}', {
      mode: 0o644,
    });
    await writeFile(join(base, '.credentials.json'), '{}', { mode: 0o600 });
    const files = new Map([
      ['config.toml', 'model = "m"\n'],
      ['agents/reviewer.toml', 'name = "reviewer"\n'],
    ]);
    const { authCopied } = await writeProcessHome({ process: 'lead', files }, home, base);
    expect(authCopied).toBe(true);
    expect(await modeOf(home)).toBe(0o700);
    expect(await modeOf(join(home, 'agents'))).toBe(0o700);
    expect(await modeOf(join(home, 'config.toml'))).toBe(0o600);
    expect(await modeOf(join(home, 'agents', 'reviewer.toml'))).toBe(0o600);
    expect(await modeOf(join(home, 'auth.json'))).toBe(0o600);
    await expect(stat(join(home, '.credentials.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
