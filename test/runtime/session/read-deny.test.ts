/**
 * The read deny of a session's processes: existing operator directories, the state dir included,
 * are denied by path, and missing ones by a glob over their contents, so Codex's sandbox creates
 * no mount-point file at them (profile smoke denies a state dir that may not exist yet).
 */
import { mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { denyEntries } from '../../../src/config/compile/session-boundary.js';
import { denyWhole, sessionReadDeny } from '../../../src/runtime/session/read-deny.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'codex-mmo-read-deny-'));
  await mkdir(join(root, 'config'));
  await mkdir(join(root, 'real-data'));
  await symlink(join(root, 'real-data'), join(root, 'data'));
  await mkdir(join(root, 'state'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('denyWhole', () => {
  it('denies existing directories by path (and their real path) and missing ones apart', async () => {
    const deny = await denyWhole([
      join(root, 'config'),
      join(root, 'data'),
      join(root, 'no-codex-home'),
      join(root, 'no-state'),
    ]);
    expect(deny.dirs).toEqual([join(root, 'config'), join(root, 'data'), join(root, 'real-data')]);
    expect(deny.absentDirs).toEqual([join(root, 'no-codex-home'), join(root, 'no-state')]);
  });

  it('renders a missing directory as a glob over its contents, never as its literal path', async () => {
    const entries = denyEntries(await denyWhole([join(root, 'no-[home]')]));
    expect(entries).toEqual({
      [`${join(root, 'no-[[]home[]]')}/**`]: 'deny',
      glob_scan_max_depth: 10,
    });
  });
});

describe('sessionReadDeny', () => {
  it('keeps the base Codex home out of the literal entries when it does not exist', async () => {
    const deny = await sessionReadDeny({
      configDir: join(root, 'config'),
      dataDir: join(root, 'data'),
      stateDir: join(root, 'state'),
      baseCodexHome: join(root, 'absent-codex'),
      codexBin: 'codex',
    });
    expect(deny.dirs).not.toContain(join(root, 'absent-codex'));
    expect(deny.absentDirs).toEqual([join(root, 'absent-codex')]);
    expect(Object.keys(denyEntries(deny))).toContain(`${join(root, 'absent-codex')}/**`);
  });

  it('denies the state dir whole by one literal entry, creating it owner-only when missing', async () => {
    const state = join(root, 'new-state');
    const deny = await sessionReadDeny({
      configDir: join(root, 'config'),
      dataDir: join(root, 'data'),
      stateDir: state,
      baseCodexHome: join(root, 'absent-codex'),
      codexBin: 'codex',
    });
    expect((await stat(state)).mode & 0o777).toBe(0o700);
    const entries = denyEntries(deny);
    expect(entries[state]).toBe('deny');
    // no glob reaches into the state dir: nothing there for Codex to scan
    expect(Object.keys(entries).filter((k) => k.startsWith(`${state}/`))).toEqual([]);
    expect(entries).toEqual({
      [join(root, 'config')]: 'deny',
      [join(root, 'data')]: 'deny',
      [join(root, 'real-data')]: 'deny',
      [state]: 'deny',
      [`${join(root, 'absent-codex')}/**`]: 'deny',
      glob_scan_max_depth: 10,
    });
  });
});
