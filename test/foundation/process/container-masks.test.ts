/**
 * Container masks, with real namespaces (as this user and, as root, as an unprivileged user too):
 * a hidden directory shows empty and read-only, a kept directory inside it shows as it is and
 * stays writable, the command keeps its own uid, and nothing inside — `umount`, or a new user and
 * mount namespace — brings the hidden files back. A mask that cannot be made starts nothing;
 * masks asked of a machine that cannot mask are refused.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readableCopy } from '../../support/readable-copy.js';

import { spawnContained } from '../../../src/foundation/process/contained-spawn.js';
import { maskScript, MASK_FAILED_STATUS } from '../../../src/foundation/process/container-masks.js';
import { containment } from '../../../src/foundation/process/containment.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const RUN = join(REPO, 'test/fixtures/process/masked-run.mjs');
const ROOT = process.geteuid?.() === 0;
const SECRET = 'hidden-secret-c0n7a1';

const RUNNERS = [
  { who: 'this user', as: [] as string[], uid: process.geteuid?.() ?? 0 },
  ...(ROOT
    ? [
        {
          who: 'an unprivileged user',
          as: ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'],
          uid: 65534,
        },
      ]
    : []),
];

function masked(
  as: readonly string[],
  spec: { hide: string[]; keep: string[]; script: string },
): Promise<string> {
  // another user runs the built copy every user may read: the checkout may be closed to it
  const copy = as.length > 0 ? readableCopy() : undefined;
  const node =
    copy === undefined
      ? ['--import', 'tsx', RUN, JSON.stringify(spec)]
      : [copy.fixture('masked-run.mjs'), JSON.stringify(spec)];
  const [command, ...args] = [...as, process.execPath, ...node] as [string, ...string[]];
  const cwd = copy?.root ?? REPO;
  const env = { ...process.env, ...copy?.env };
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: 30_000 }, (_e, stdout) => {
      resolve(stdout);
    });
  });
}

let root = '';
let hide = '';
let keep = '';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mmo-masks-'));
  hide = join(root, 'hide');
  keep = join(hide, 'keep');
  await mkdir(keep, { recursive: true });
  await writeFile(join(hide, 'secret.txt'), `${SECRET}\n`);
  await writeFile(join(keep, 'mine.txt'), 'MINE\n');
  // readable and, the kept directory, writable by the unprivileged user too
  await chmod(root, 0o755);
  await chmod(hide, 0o755);
  await chmod(keep, 0o777);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe.each(RUNNERS)('a masked container started by $who', ({ as, uid }) => {
  it('hides the directory but what is kept, keeps the uid, and cannot be undone inside', async () => {
    const written = join(keep, `written-${String(uid)}`);
    const script = [
      'id -u',
      `ls -A ${hide}`,
      `cat ${join(hide, 'secret.txt')}`,
      `cat ${join(keep, 'mine.txt')}`,
      `echo w > ${written} && echo WROTE`,
      `touch ${join(hide, 'new')} 2>/dev/null || echo READ-ONLY`,
      `umount ${hide} 2>/dev/null || umount -l ${hide} 2>/dev/null || echo NO-UMOUNT`,
      `unshare --user --map-root-user --mount sh -c 'umount -l ${keep}; umount -l ${hide}; cat ${join(hide, 'secret.txt')}'`,
      'echo END',
    ].join('; ');
    const out = await masked(as, { hide: [hide], keep: [keep], script });
    expect(out).not.toContain('unmaskable');
    const lines = out.split('\n');
    expect(lines[0]).toBe(String(uid));
    expect(lines[1]).toBe('keep');
    expect(out).toContain('MINE');
    expect(out).toContain('WROTE');
    expect(out).toContain('READ-ONLY');
    expect(out).toContain('NO-UMOUNT');
    expect(out).toContain('END');
    expect(out).not.toContain(SECRET);
    expect(out).toContain('exit 0');
    // the kept directory is the real one: what was written there is on the host
    expect(await readFile(written, 'utf8')).toBe('w\n');
  }, 60_000);

  it('starts nothing when a mask cannot be made', async () => {
    const out = await masked(as, {
      hide: [join(root, 'absent')],
      keep: [],
      script: `touch ${join(keep, 'RAN')}; echo RAN`,
    });
    expect(out).not.toContain('RAN');
    expect(out).toContain(`exit ${String(MASK_FAILED_STATUS)}`);
  }, 60_000);
});

describe('masks', () => {
  it('are refused where the containment cannot mask', () => {
    const how = containment();
    expect(how.available && how.masking !== undefined).toBe(true);
    const without = how.available
      ? { available: true as const, prefix: how.prefix, sleep: how.sleep }
      : how;
    expect(() =>
      spawnContained('/bin/true', [], {
        env: {},
        stdio: ['ignore', 'ignore', 'ignore'],
        containment: without,
        masks: { hide: ['/nonexistent'], keep: [] },
      }),
    ).toThrow(/cannot mask/);
  });

  it('hide a directory inside another with it, keep only what lies in a hidden one, and quote', () => {
    const masking = { prefix: [], mount: '/m', mkdir: '/d', nest: [] };
    const script = maskScript(
      { hide: ['/a', '/a/b', "/c'd"], keep: ['/a/k', '/elsewhere'] },
      masking,
    );
    expect(script).toContain("'/m' -t tmpfs");
    expect(script).toContain("'/a'");
    expect(script).not.toContain("'/a/b'");
    expect(script).toContain(`'/c'\\''d'`);
    expect(script).toContain("exec 4<'/a/k'");
    expect(script).toContain("'/m' --no-canonicalize --bind /proc/self/fd/4 '/a/k'");
    expect(script).not.toContain('/elsewhere');
    // each line that can fail ends the container
    for (const line of script.trim().split('\n')) {
      if (!line.endsWith('<&-')) expect(line).toMatch(/\|\| exit 125$/);
    }
  });
});
