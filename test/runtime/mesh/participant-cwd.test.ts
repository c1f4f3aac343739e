/**
 * Where a participant may work: the session's working directory or below it, symlinks resolved,
 * never codex-mmo's config, data or state dir or a Codex home, nor a directory holding one.
 */
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { MeshError } from '../../../src/runtime/protocol/mesh-protocol.js';
import { checkParticipantCwd } from '../../../src/runtime/mesh/participant-cwd.js';
import { tmpDir } from '../../support/tmp.js';

let root: string;
let session: string;
let outside: string;
let forbidden: { name: string; path: string }[];

async function refusal(requested: string): Promise<MeshError> {
  const error: unknown = await checkParticipantCwd(requested, session, forbidden).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MeshError);
  return error as MeshError;
}

beforeAll(async () => {
  root = await tmpDir('codex-mmo-cwd-');
  session = join(root, 'project');
  outside = join(root, 'elsewhere');
  await mkdir(join(session, 'src', 'deep'), { recursive: true });
  await mkdir(outside, { recursive: true });
  // the operator's directories inside the project, as when a user runs a session from ~
  forbidden = [
    { name: 'config dir', path: join(session, 'home', '.config', 'codex-mmo') },
    { name: 'data dir', path: join(session, 'home', '.local', 'share', 'codex-mmo') },
    { name: 'state dir', path: join(session, 'home', '.local', 'state', 'codex-mmo') },
    { name: 'base Codex home', path: join(session, 'home', '.codex') },
  ];
  for (const dir of forbidden) await mkdir(join(dir.path, 'inner'), { recursive: true });
  await symlink(outside, join(session, 'escape'));
  await symlink(join(session, 'src'), join(session, 'inside-link'));
});

describe('participant cwd', () => {
  it('accepts directories below the session directory, returning the real path', async () => {
    await expect(
      checkParticipantCwd(join(session, 'src', 'deep'), session, forbidden),
    ).resolves.toBe(join(session, 'src', 'deep'));
    await expect(
      checkParticipantCwd(join(session, 'inside-link'), session, forbidden),
    ).resolves.toBe(join(session, 'src'));
  });

  it('accepts the session directory itself when it holds none of the operator directories', async () => {
    const elsewhere = forbidden.map((d) => ({ name: d.name, path: join(outside, d.name) }));
    await expect(checkParticipantCwd(session, session, elsewhere)).resolves.toBe(session);
  });

  it('refuses the session directory itself when it holds an operator directory', async () => {
    const error = await refusal(session);
    expect(error.code).toBe('refused');
    expect(error.message).toContain('is or holds the');
  });

  it('refuses a directory outside the session directory, naming the rule', async () => {
    for (const dir of [outside, root, '/']) {
      const error = await refusal(dir);
      expect(error.code).toBe('refused');
      expect(error.message).toContain('outside the session');
      expect(error.message).toContain('symlinks resolved');
    }
  });

  it('refuses a sibling whose name only starts like the session directory', async () => {
    const sibling = `${session}-other`;
    await mkdir(sibling, { recursive: true });
    expect((await refusal(sibling)).code).toBe('refused');
  });

  it('refuses a symlink below the session directory that escapes it', async () => {
    const error = await refusal(join(session, 'escape'));
    expect(error.code).toBe('refused');
    expect(error.message).toContain('outside the session');
  });

  it('refuses the config, data and state dir and the base Codex home, and directories inside them', async () => {
    for (const dir of forbidden) {
      for (const requested of [dir.path, join(dir.path, 'inner')]) {
        const error = await refusal(requested);
        expect(error.code).toBe('refused');
        expect(error.message).toContain(dir.name);
        expect(error.message).toContain('never works in');
      }
    }
  });

  it('refuses a directory that holds one of them', async () => {
    for (const requested of [join(session, 'home'), join(session, 'home', '.local')]) {
      const error = await refusal(requested);
      expect(error.code).toBe('refused');
      expect(error.message).toContain('is or holds the');
    }
  });

  it('refuses a symlink into a forbidden directory', async () => {
    const link = join(session, 'to-codex-home');
    await symlink(join(session, 'home', '.codex'), link);
    const error = await refusal(link);
    expect(error.message).toContain('base Codex home');
  });

  it('rejects a relative or missing directory as invalid', async () => {
    expect((await refusal('project/src')).code).toBe('invalid');
    expect((await refusal(join(session, 'missing'))).code).toBe('invalid');
  });
});
