/**
 * When an interactive root's folder may be marked trusted: every `.codex` from the working
 * directory up is blanked (made on the view's tmpfs inside a private directory), and trust is
 * refused, with the reason, where a shell could make or reach one the view cannot blank.
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import {
  folderTrust,
  sessionFolderTrust,
  type FolderTrustFacts,
} from '../../../src/runtime/session/folder-trust.js';
import { TEST_CODEX_BIN } from '../../support/codex-bin.js';

type Kind = 'absent' | 'directory' | 'symlink' | 'other';

/** A host where only `paths` exist, each of its kind. */
function host(paths: Record<string, Kind>): (path: string) => Promise<Kind> {
  return (path) => Promise.resolve(paths[path] ?? 'absent');
}

const HOME_REPO: FolderTrustFacts = {
  cwd: '/home/op/repo',
  keep: ['/home/op/.local/state/codex-mmo/sessions/s1', '/opt/codex'],
  privateDirs: ['/tmp', '/dev/shm'],
  writable: ['/home/op/repo', '/tmp'],
};

describe('folderTrust', () => {
  it('blanks every .codex that exists from the working directory up', async () => {
    const found = await folderTrust(
      HOME_REPO,
      host({ '/home/op/repo/.codex': 'directory', '/home/op/.codex': 'directory' }),
    );
    expect(found).toEqual({ trusted: true, blank: ['/home/op/repo/.codex', '/home/op/.codex'] });
  });

  it('blanks those inside a private directory whether or not the host has them', async () => {
    const found = await folderTrust(
      { ...HOME_REPO, cwd: '/tmp/w/work', writable: ['/tmp/w/work', '/tmp'] },
      host({}),
    );
    expect(found).toEqual({ trusted: true, blank: ['/tmp/w/.codex', '/tmp/.codex'] });
  });

  it('refuses where a shell could write a .codex above the working directory on the host', async () => {
    const found = await folderTrust(
      { ...HOME_REPO, cwd: '/var/tmp/x/work', writable: ['/var/tmp/x/work', '/var/tmp'] },
      host({}),
    );
    expect(found).toEqual({
      trusted: false,
      reason: "the session's shells can write in /var/tmp/x",
    });
  });

  it('refuses for a role that runs unsandboxed, a linked or odd .codex, or one holding the session', async () => {
    expect(await folderTrust({ ...HOME_REPO, unsandboxedRole: 'ops' }, host({}))).toEqual({
      trusted: false,
      reason: "role 'ops' runs with full access and could write a .codex",
    });
    expect(await folderTrust(HOME_REPO, host({ '/home/op/.codex': 'symlink' }))).toMatchObject({
      trusted: false,
      reason: '/home/op/.codex is a symbolic link',
    });
    expect(await folderTrust(HOME_REPO, host({ '/home/.codex': 'other' }))).toMatchObject({
      trusted: false,
      reason: '/home/.codex is not a directory',
    });
    const inside = { ...HOME_REPO, keep: ['/home/op/.codex/mmo-state/sessions/s1'] };
    expect(await folderTrust(inside, host({ '/home/op/.codex': 'directory' }))).toEqual({
      trusted: false,
      reason: '/home/op/.codex holds what the session needs',
    });
  });
});

describe('sessionFolderTrust', () => {
  const made: string[] = [];
  afterAll(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  it("reads the host: a real folder's .codex is blanked, a full-access role refuses", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'codex-mmo-folder-trust-')));
    made.push(root);
    const cwd = join(root, 'work');
    await mkdir(join(cwd, '.codex'), { recursive: true });
    await writeFile(join(cwd, '.codex', 'config.toml'), '');
    const facts = {
      cwd,
      sessionDir: join(tmpdir(), 'sessions', 's1'),
      codexBin: TEST_CODEX_BIN,
      tmpDir: '/tmp',
      roles: [{ name: 'lead', permissions: 'workspace-write' as const }],
    };
    const found = await sessionFolderTrust(facts);
    expect(found.trusted).toBe(true);
    if (found.trusted) expect(found.blank).toContain(join(cwd, '.codex'));
    expect(
      await sessionFolderTrust({
        ...facts,
        roles: [...facts.roles, { name: 'ops', permissions: 'full-access' }],
      }),
    ).toMatchObject({ trusted: false });
    await symlink(cwd, join(root, '.codex'));
    expect(await sessionFolderTrust(facts)).toEqual({
      trusted: false,
      reason: `${join(root, '.codex')} is a symbolic link`,
    });
  });
});
