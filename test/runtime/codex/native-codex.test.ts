/**
 * Sessions start Codex as its native binary: the npm launcher of each installed version (and the
 * `node_modules/.bin`-style symlink to it) resolves to the binary its platform package holds, with
 * the variables the launcher sets; anything else is started as it is.
 */
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';

import { detectCodex } from '../../../src/runtime/codex/find-codex.js';
import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import { resolveCodexLaunch } from '../../../src/runtime/codex/native-codex.js';
import { INSTALLED_CODEX, TEST_CODEX_BIN } from '../../support/codex-bin.js';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('resolveCodexLaunch', () => {
  for (const installed of INSTALLED_CODEX) {
    it(`starts Codex ${installed.series} as its native binary, with the launcher's variables`, async () => {
      const launch = await resolveCodexLaunch(installed.launcher);
      expect(launch.command).toMatch(/\/vendor\/[^/]+-linux-musl\/bin\/codex$/);
      expect(launch.env.CODEX_MANAGED_BY_NPM).toBe('1');
      expect(launch.env.CODEX_MANAGED_PACKAGE_ROOT).toBe(join(installed.launcher, '../..'));
      // the same binary the launcher runs: both report one version
      const viaLauncher = execFileSync(installed.launcher, ['--version'], { encoding: 'utf8' });
      const direct = execFileSync(launch.command, ['--version'], { encoding: 'utf8' });
      expect(direct).toBe(viaLauncher);
      expect(direct).toContain(installed.series);
    });
  }

  it('follows a symlink to the launcher, as node_modules/.bin/codex is', async () => {
    const launch = await resolveCodexLaunch(TEST_CODEX_BIN);
    expect(launch.command).toMatch(/\/bin\/codex$/);
    expect(launch.command).not.toBe(TEST_CODEX_BIN);
  });

  it('starts anything that is not the npm launcher as it is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mmo-native-'));
    temps.push(dir);
    const script = join(dir, 'codex');
    await writeFile(script, '#!/bin/sh\necho codex-cli 0.171.0\n', { mode: 0o755 });
    expect(await resolveCodexLaunch(script)).toEqual({ command: script, env: {} });
    // a codex.js of another package is not the launcher either
    await mkdir(join(dir, 'pkg/bin'), { recursive: true });
    await writeFile(join(dir, 'pkg/package.json'), '{"name":"not-codex"}');
    await writeFile(join(dir, 'pkg/bin/codex.js'), '', { mode: 0o755 });
    await symlink(join(dir, 'pkg/bin/codex.js'), join(dir, 'link'));
    expect((await resolveCodexLaunch(join(dir, 'link'))).command).toBe(join(dir, 'link'));
  });

  it('keeps the launcher when its platform has no native binary installed', async () => {
    const launcher = INSTALLED_CODEX[0]!.launcher;
    expect(await resolveCodexLaunch(launcher, 'freebsd', 'x64')).toEqual({
      command: launcher,
      env: {},
    });
    expect(await resolveCodexLaunch(launcher, 'darwin', 'arm64')).toEqual({
      command: launcher,
      env: {},
    });
  });

  it('is what detectCodex reports as the launch of the located Codex', async () => {
    const detection = await detectCodex(TEST_CODEX_BIN, { PATH: '/usr/bin:/bin' });
    expect(detection.kind).toBe('found');
    if (detection.kind !== 'found') return;
    expect(detection.path).toBe(TEST_CODEX_BIN);
    expect(detection.launch).toEqual(await resolveCodexLaunch(TEST_CODEX_BIN));
  });
});

describe('the version table says what the launcher does', () => {
  for (const installed of INSTALLED_CODEX) {
    it(`names the variables the ${installed.series} launcher sets and the binary it starts`, async () => {
      const row = CODEX_VERSIONS.find((r) => r.series === installed.series);
      expect(row).toBeDefined();
      const source = await readFile(installed.launcher, 'utf8');
      for (const name of row?.nativeLaunch.launcherEnv ?? []) expect(source).toContain(name);
      const launch = await resolveCodexLaunch(installed.launcher);
      expect(Object.keys(launch.env).sort()).toEqual(
        [...(row?.nativeLaunch.launcherEnv ?? [])].sort(),
      );
      expect(launch.command.endsWith(`/${row?.nativeLaunch.entry ?? ''}`)).toBe(true);
      // the launcher adds nothing to PATH: the binary's bundled tools sit next to it
      expect(source).not.toMatch(/\bPATH\b/);
    });
  }
});
