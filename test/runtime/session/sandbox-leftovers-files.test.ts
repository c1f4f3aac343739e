/**
 * Which sandbox mount points the supervisor notes as absent, and which of them it removes at the
 * end of a session: only what is still empty, never what holds content or is a symlink.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  absentMountPoints,
  removeMountPointLeftovers,
} from '../../../src/runtime/session/sandbox-leftovers.js';

const NAMES = ['.agents', '.aws', '.codex', '.git'];
let dir = '';

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sandbox mount point leftovers', () => {
  it('notes only the names absent at launch and removes only the empty ones', async () => {
    dir = await mkdtemp(join(tmpdir(), 'codex-mmo-leftovers-'));
    await mkdir(join(dir, '.codex'));
    const absent = await absentMountPoints(dir, NAMES);
    expect(absent).toEqual([join(dir, '.agents'), join(dir, '.aws'), join(dir, '.git')]);

    // during the session: the sandbox's empty mount points, and a repository the model made
    await mkdir(join(dir, '.agents'));
    await writeFile(join(dir, '.aws'), '');
    await mkdir(join(dir, '.git'));
    await writeFile(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    expect(await removeMountPointLeftovers(absent)).toEqual([
      join(dir, '.agents'),
      join(dir, '.aws'),
    ]);
    expect(existsSync(join(dir, '.git', 'HEAD'))).toBe(true);
    expect(existsSync(join(dir, '.codex'))).toBe(true);
  });

  it('leaves a symlink and a file with content', async () => {
    dir = await mkdtemp(join(tmpdir(), 'codex-mmo-leftovers-'));
    const absent = await absentMountPoints(dir, NAMES);
    await mkdir(join(dir, 'target'));
    await symlink(join(dir, 'target'), join(dir, '.agents'));
    await writeFile(join(dir, '.aws'), 'x');
    expect(await removeMountPointLeftovers(absent)).toEqual([]);
    expect(existsSync(join(dir, '.agents'))).toBe(true);
    expect(existsSync(join(dir, '.aws'))).toBe(true);
  });
});
