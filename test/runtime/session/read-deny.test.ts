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
import {
  configDeny,
  denyWhole,
  maskedDirs,
  plainCodexArgs,
  sandboxWritable,
  sessionReadDeny,
} from '../../../src/runtime/session/read-deny.js';

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
    const deny = await sessionReadDeny(
      {
        configDir: join(root, 'config'),
        dataDir: join(root, 'data'),
        stateDir: join(root, 'state'),
        baseCodexHome: join(root, 'absent-codex'),
        codexBin: 'codex',
      },
      false,
    );
    expect(deny.dirs).not.toContain(join(root, 'absent-codex'));
    expect(deny.absentDirs).toEqual([join(root, 'absent-codex')]);
    expect(Object.keys(denyEntries(deny))).toContain(`${join(root, 'absent-codex')}/**`);
  });

  it('denies the state dir whole by one literal entry, creating it owner-only when missing', async () => {
    const state = join(root, 'new-state');
    const deny = await sessionReadDeny(
      {
        configDir: join(root, 'config'),
        dataDir: join(root, 'data'),
        stateDir: state,
        baseCodexHome: join(root, 'absent-codex'),
        codexBin: 'codex',
      },
      false,
    );
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

describe('masks in place of deny entries', () => {
  const dirs = () => ({
    configDir: join(root, 'config'),
    dataDir: join(root, 'data'),
    stateDir: join(root, 'state'),
    baseCodexHome: join(root, 'codex'),
    codexBin: 'codex',
  });

  it('are offered only where containers can mask and every directory exists, by real path', async () => {
    expect((await sessionReadDeny(dirs(), false)).maskable).toBeUndefined();
    // the base Codex home is absent: its glob stays, and so do all deny entries
    expect((await sessionReadDeny(dirs(), true)).maskable).toBeUndefined();
    await mkdir(join(root, 'codex'));
    const deny = await sessionReadDeny(dirs(), true);
    expect([...(deny.maskable ?? [])].sort()).toEqual(
      ['config', 'real-data', 'state', 'codex'].map((d) => join(root, d)).sort(),
    );
    await rm(join(root, 'codex'), { recursive: true });
  });

  it('shield a process alone only with one role, no auth.json copy and its cwd outside', () => {
    const hide = [join(root, 'config'), join(root, 'state')];
    const deny = { dirs: hide, maskable: hide };
    const facts = {
      cwd: join(root, 'work'),
      codexBin: '/usr/bin/codex',
      roles: 1,
      authFile: false,
      writable: [join(root, 'work'), '/tmp-like'],
    };
    expect(maskedDirs(deny, facts)).toEqual(hide);
    expect(configDeny(deny, hide)).toEqual({ dirs: [] });
    expect(maskedDirs(deny, { ...facts, roles: 2 })).toBeUndefined();
    expect(maskedDirs(deny, { ...facts, authFile: true })).toBeUndefined();
    expect(maskedDirs(deny, { ...facts, cwd: join(root, 'state', 'x') })).toBeUndefined();
    expect(maskedDirs(deny, { ...facts, cwd: join(root, 'config') })).toBeUndefined();
    expect(maskedDirs(deny, { ...facts, codexBin: join(root, 'config', 'bin', 'codex') })).toBe(
      undefined,
    );
    // a sibling whose name merely starts the same is outside
    expect(maskedDirs(deny, { ...facts, cwd: join(root, 'state-other') })).toEqual(hide);
    expect(maskedDirs({ dirs: hide }, facts)).toBeUndefined();
    // a hidden directory inside a directory the shells can write: the home would be writable
    expect(maskedDirs(deny, { ...facts, writable: [root] })).toBeUndefined();
    expect(maskedDirs(deny, { ...facts, writable: ['/'] })).toBeUndefined();
    expect(maskedDirs(deny, { ...facts, writable: [] })).toEqual(hide);
    expect(configDeny(deny, undefined)).toBe(deny);
  });
});

describe('what decides the masks besides the directories', () => {
  it('knows where each permission level lets the shells write', async () => {
    expect(await sandboxWritable('read-only', root, '/tmp')).toEqual([]);
    expect(await sandboxWritable('full-access', root, undefined)).toEqual(['/']);
    const data = join(root, 'data');
    expect(await sandboxWritable('workspace-write', data, data)).toEqual([
      join(root, 'real-data'),
      '/tmp',
    ]);
  });

  it('takes only a model choice among the operator Codex arguments', () => {
    expect(plainCodexArgs([])).toBe(true);
    expect(plainCodexArgs(['-m', 'gpt-5', '--model=o3', '--model', 'x'])).toBe(true);
    expect(plainCodexArgs(['-c', 'sandbox_workspace_write.writable_roots=["/"]'])).toBe(false);
    expect(plainCodexArgs(['--add-dir', '/'])).toBe(false);
    expect(plainCodexArgs(['--sandbox', 'danger-full-access'])).toBe(false);
  });
});
