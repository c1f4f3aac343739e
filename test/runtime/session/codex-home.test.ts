/**
 * A process's private Codex home on disk: the home and its `agents/` directory are 0700, the
 * rendered config, role files and the `auth.json` copy are 0600, and `.credentials.json` of the
 * base home is never copied.
 */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { clearEndedHomes, writeProcessHome } from '../../../src/runtime/session/codex-home.js';
import { tmpDir } from '../../support/tmp.js';

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

describe('clearEndedHomes', () => {
  it("keeps only the rendered files and Codex's rollouts of every home", async () => {
    const root = await tmpDir();
    const homes = join(root, 'homes');
    for (const name of ['lead', 'worker-1']) {
      const home = join(homes, name);
      await mkdir(join(home, 'agents'), { recursive: true });
      await mkdir(join(home, 'sessions', '2026', '12', '01'), { recursive: true });
      await mkdir(join(home, 'skills', '.system', 'x'), { recursive: true });
      await mkdir(join(home, '.tmp', 'arg0'), { recursive: true });
      await writeFile(join(home, 'config.toml'), 'model = "m"\n');
      await writeFile(join(home, 'agents', 'reviewer.toml'), 'name = "reviewer"\n');
      await writeFile(join(home, 'sessions', '2026', '12', '01', 'rollout-1.jsonl'), '{}\n');
      await writeFile(join(home, 'auth.json'), '{"OPENAI_API_KEY":"sk-canary-ended"}');
      await writeFile(join(home, 'state_5.sqlite'), 'x');
      await writeFile(join(home, '.sandbox_migration'), 'x');
    }
    await clearEndedHomes(homes);
    for (const name of ['lead', 'worker-1']) {
      const home = join(homes, name);
      expect((await readdir(home)).sort()).toEqual(['agents', 'config.toml', 'sessions']);
      expect(await readdir(join(home, 'sessions', '2026', '12', '01'))).toEqual([
        'rollout-1.jsonl',
      ]);
      expect(await readdir(join(home, 'agents'))).toEqual(['reviewer.toml']);
    }
  });

  it('is fine with a session that has no homes', async () => {
    const root = await tmpDir();
    await expect(clearEndedHomes(join(root, 'homes'))).resolves.toBeUndefined();
  });
});
