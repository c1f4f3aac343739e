/**
 * A view's blanked directories: an existing one, and one inside a private directory, is shown
 * empty and read-only; one the host lacks outside them is left alone, so nothing is made there.
 */
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import {
  bwrapCandidates,
  findHostView,
  hostViewLaunch,
  spawnInView,
  viewPrivateDirs,
} from '../../../src/foundation/process/host-view.js';
import { resolveCodexLaunch } from '../../../src/runtime/codex/native-codex.js';
import { TEST_CODEX_BIN } from '../../support/codex-bin.js';

describe('hostViewLaunch: blanked directories', () => {
  const view = { available: true, bwrap: '/usr/bin/bwrap' } as const;

  it('blanks those that exist, and those on a private tmpfs, after the binds', () => {
    const present = (dir: string): boolean => dir !== '/srv/.codex' && dir !== '/tmp/w/.codex';
    const launch = hostViewLaunch(
      view,
      { keep: ['/tmp/w/work'], blank: ['/tmp/w/work/.codex', '/tmp/w/.codex', '/srv/.codex'] },
      present,
    );
    const argv = launch?.argv.join(' ') ?? '';
    expect(argv).toContain('--tmpfs /tmp/w/work/.codex --remount-ro /tmp/w/work/.codex');
    expect(argv).toContain('--tmpfs /tmp/w/.codex --remount-ro /tmp/w/.codex');
    expect(argv).not.toContain('/srv/.codex');
    expect(argv.indexOf('--bind /tmp/w/work')).toBeLessThan(argv.indexOf('/tmp/w/.codex'));
  });

  it('leaves one the host lacks inside a kept directory alone', () => {
    const launch = hostViewLaunch(
      view,
      { keep: ['/tmp/w/work'], blank: ['/tmp/w/work/.codex'] },
      (dir) => dir !== '/tmp/w/work/.codex',
    );
    expect(launch?.argv.join(' ')).not.toContain('.codex');
  });

  it('names the private directories of a view', () => {
    expect(viewPrivateDirs(['/srv/work'], [], () => true)).toEqual(['/tmp', '/dev/shm']);
    expect(viewPrivateDirs(['/'], [], () => true)).toEqual([]);
  });
});

describe('a blanked directory in a real view', () => {
  const made: string[] = [];
  afterAll(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  it('shows it empty and refuses writes, while the host keeps its files', async () => {
    const native = await resolveCodexLaunch(TEST_CODEX_BIN);
    const found = await findHostView(bwrapCandidates(native.command));
    expect(found.available, found.available ? '' : found.reason).toBe(true);
    if (!found.available) return;
    const root = await realpath(await mkdtemp('/tmp/codex-mmo-blank-'));
    made.push(root);
    const folder = join(root, '.codex');
    await mkdir(folder);
    await writeFile(join(folder, 'config.toml'), '[mcp_servers.x]\n');
    const launch = hostViewLaunch(found, { keep: [root], blank: [folder] });
    if (launch === undefined) throw new Error('no view');
    const script = `ls -A ${folder}; echo listed; touch ${folder}/config.toml 2>/dev/null || echo refused`;
    const child = spawnInView(launch, ['/bin/sh', '-c', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => (out += chunk));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
    expect(out.trim().split('\n')).toEqual(['listed', 'refused']);
    expect(await readdir(folder)).toEqual(['config.toml']);
  });
});
