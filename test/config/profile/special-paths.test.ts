/**
 * Pack storage and pack reading refuse kernel pseudo-filesystems (procfs, sysfs) and special
 * files quickly with a diagnostic, instead of hanging or spinning on them. Runs the built CLI
 * as a real process so a spin is cut off by a timeout rather than stalling the test runner.
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { CLI } from '../../support/world.js';
import { EXAMPLE_PACK } from '../../support/examples.js';
import { tmpDir } from '../../support/tmp.js';

function cli(args: string[], base: string) {
  const started = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: base,
    env: { PATH: process.env.PATH, HOME: base },
    encoding: 'utf8',
    timeout: 20_000,
    killSignal: 'SIGKILL',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

describe('special paths', () => {
  for (const dataDir of ['/proc', '/proc/self', '/sys']) {
    it(`profile install --data-dir ${dataDir} is refused quickly`, async () => {
      const base = await tmpDir();
      const pack = join(base, 'research');
      await cp(EXAMPLE_PACK, pack, { recursive: true });
      const r = cli(['profile', 'install', pack, '--data-dir', dataDir, '--json'], base);
      expect(r.code).toBe(1);
      expect(r.ms).toBeLessThan(15_000);
      const out = JSON.parse(r.stdout) as { ok: boolean; diagnostics: { code: string }[] };
      expect(out.ok).toBe(false);
      expect(out.diagnostics.map((d) => d.code)).toContain('special-filesystem');
    }, 30_000);
  }

  it('a pack directory on procfs is refused', async () => {
    const base = await tmpDir();
    const r = cli(['profile', 'show', '/proc/self', '--json'], base);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { diagnostics: { code: string }[] };
    expect(out.diagnostics.map((d) => d.code)).toContain('special-filesystem');
  }, 30_000);

  it('a profile.toml that is a named pipe or a device is refused without blocking', async () => {
    const base = await tmpDir();
    for (const [name, code, make] of [
      ['fifo', 'pack-not-found', (f: string) => spawnSync('mkfifo', [f]).status],
      [
        'device',
        'pack-file-outside-pack',
        async (f: string) => {
          const { symlink } = await import('node:fs/promises');
          await symlink('/dev/zero', f);
          return 0;
        },
      ],
    ] as const) {
      const pack = join(base, name);
      await mkdir(pack);
      expect(await make(join(pack, 'profile.toml'))).toBe(0);
      await writeFile(join(pack, 'lead.md'), 'x\n');
      const r = cli(['profile', 'show', pack, '--json'], base);
      expect(r.code).toBe(1);
      expect(r.ms).toBeLessThan(15_000);
      const out = JSON.parse(r.stdout) as { diagnostics: { code: string; message: string }[] };
      expect(out.diagnostics.map((d) => d.code)).toEqual([code]);
    }
  }, 60_000);
});
