/**
 * Installing, listing and locating packs: read-only copies, idempotent reinstall, --force, and
 * refusal of invalid packs.
 */
import { cp, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  installPack,
  listPacks,
  locatePack,
  profilesDir,
} from '../../../src/config/profile/pack-store.js';
import { EXAMPLE_PACK } from '../../support/examples.js';
import { tmpDir } from '../../support/tmp.js';

async function copyOfExample(): Promise<string> {
  const dir = join(await tmpDir(), 'research');
  await cp(EXAMPLE_PACK, dir, { recursive: true });
  return dir;
}

async function modes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    const path = join(dir, rel);
    const info = await stat(path);
    out[rel === '' ? '.' : rel] = (info.mode & 0o777).toString(8);
    if (info.isDirectory()) {
      for (const name of await readdir(path)) await walk(rel === '' ? name : `${rel}/${name}`);
    }
  };
  await walk('');
  return out;
}

describe('installPack', () => {
  it('copies exactly the pack files read-only into <data>/profiles/<name>', async () => {
    const src = await copyOfExample();
    await writeFile(join(src, 'NOTES.txt'), 'not part of the pack');
    const data = await tmpDir();
    const result = await installPack(src, data);
    expect(result).toMatchObject({
      name: 'research',
      created: true,
      replaced: false,
      diagnostics: [],
    });
    expect(result.path).toBe(join(data, 'profiles', 'research'));
    expect(await modes(result.path!)).toEqual({
      '.': '500',
      'lead.md': '400',
      'profile.toml': '400',
      'researcher.md': '400',
      'reviewer.md': '400',
    });
    expect(await readFile(join(result.path!, 'lead.md'), 'utf8')).toBe(
      await readFile(join(src, 'lead.md'), 'utf8'),
    );
    // no staging directories left behind
    expect(await readdir(profilesDir(data))).toEqual(['research']);
  });

  it('keeps nested instruction directories, read-only too', async () => {
    const src = await tmpDir();
    await mkdir(join(src, 'prompts', 'deep'), { recursive: true });
    await writeFile(join(src, 'prompts', 'deep', 'a.md'), 'Do A.');
    await writeFile(
      join(src, 'profile.toml'),
      'schema_version = 8\nname = "nested"\nroot = "a"\n[agents.a]\ndescription = "A"\ninstructions_file = "prompts/deep/a.md"\n',
    );
    const data = await tmpDir();
    const result = await installPack(src, data);
    expect(await modes(result.path!)).toEqual({
      '.': '500',
      prompts: '500',
      'prompts/deep': '500',
      'prompts/deep/a.md': '400',
      'profile.toml': '400',
    });
  });

  it('is a no-op for the same content, refuses different content, and replaces it with force', async () => {
    const src = await copyOfExample();
    const data = await tmpDir();
    expect((await installPack(src, data)).created).toBe(true);

    const again = await installPack(src, data);
    expect(again).toMatchObject({ created: false, replaced: false, diagnostics: [] });
    expect(again.path).toBe(join(data, 'profiles', 'research'));

    await writeFile(join(src, 'reviewer.md'), 'Review harder.\n');
    const refused = await installPack(src, data);
    expect(refused.path).toBeUndefined();
    expect(refused.created).toBe(false);
    expect(refused.diagnostics.map((d) => d.code)).toEqual(['pack-exists']);
    expect(refused.diagnostics[0]!.message).toContain('--force');
    const installed = join(data, 'profiles', 'research', 'reviewer.md');
    expect(await readFile(installed, 'utf8')).not.toBe('Review harder.\n');

    const forced = await installPack(src, data, { force: true });
    expect(forced).toMatchObject({ created: true, replaced: true, diagnostics: [] });
    expect(await readFile(installed, 'utf8')).toBe('Review harder.\n');
    expect((await stat(installed)).mode & 0o777).toBe(0o400);
    expect(await readdir(profilesDir(data))).toEqual(['research']);
  });

  it('refuses an invalid pack and writes nothing', async () => {
    const src = await copyOfExample();
    await writeFile(
      join(src, 'profile.toml'),
      (await readFile(join(src, 'profile.toml'), 'utf8')).replace(
        'enabled_tools = ["echo"]',
        'enabled_tools = ["echo"]\ncommand = "evil"',
      ),
    );
    const data = await tmpDir();
    const result = await installPack(src, data);
    expect(result.path).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['server-field-in-grant']);
    await expect(stat(profilesDir(data))).rejects.toThrow();
  });
});

describe('listPacks and locatePack', () => {
  it('lists installed packs with their roots and roles', async () => {
    const data = await tmpDir();
    expect(await listPacks(data)).toEqual([]);
    await installPack(await copyOfExample(), data);
    const packs = await listPacks(data);
    expect(packs).toMatchObject([
      { name: 'research', valid: true, root: 'lead', roles: ['lead', 'reviewer', 'researcher'] },
    ]);
  });

  it('finds a pack by installed name, by path, and by an existing directory name', async () => {
    const data = await tmpDir();
    const src = await copyOfExample();
    await installPack(src, data);
    const cwd = await tmpDir();
    expect(await locatePack('research', data, cwd)).toBe(join(data, 'profiles', 'research'));
    expect(await locatePack(src, data, cwd)).toBe(src);
    expect(await locatePack('./nope', data, cwd)).toBeUndefined();
    expect(await locatePack('nope', data, cwd)).toBeUndefined();
    // a directory of that name that is not a pack does not hide the installed pack
    await mkdir(join(cwd, 'research'));
    expect(await locatePack('research', data, cwd)).toBe(join(data, 'profiles', 'research'));
    // a pack directory of that name does
    await cp(EXAMPLE_PACK, join(cwd, 'research'), { recursive: true });
    expect(await locatePack('research', data, cwd)).toBe(join(cwd, 'research'));
    // with nothing installed, a plain directory is taken as the pack path
    await mkdir(join(cwd, 'other'));
    expect(await locatePack('other', data, cwd)).toBe(join(cwd, 'other'));
  });
});
