/**
 * The compile memo of `run`/`exec`: a second launch with unchanged inputs reuses the snapshot
 * without compiling, with the same plan and warnings; any change to an input the compile reads
 * (registry, pack, instruction file, codex-base.toml, lock, modes) compiles again; a damaged or
 * mismatched memo entry is never trusted; failed compiles are not remembered.
 */
import {
  chmod,
  mkdir,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';

import { beforeEach, describe, expect, it, vi } from 'vitest';

import {
  compileProfile,
  type CompileRequest,
} from '../../../src/config/compile/compile-profile.js';
import { resolveDirectories } from '../../../src/foundation/paths/directories.js';
import { installPack } from '../../../src/config/profile/pack-store.js';
import {
  MEMO_DIR,
  MEMO_KEEP,
  compileKey,
  compileOrReuse,
  recallCompile,
  rememberCompile,
} from '../../../src/features/session/compile-memo.js';
import { readSnapshot, storeSnapshot } from '../../../src/config/snapshot/snapshot-store.js';
import { echoServer, makeWorld, profileToml, type World } from '../../support/world.js';

const calls = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/config/compile/compile-profile.js', async (importOriginal) => {
  const actual =
    await importOriginal<typeof import('../../../src/config/compile/compile-profile.js')>();
  return {
    ...actual,
    compileProfile: (request: CompileRequest) => {
      calls.count++;
      return actual.compileProfile(request);
    },
  };
});

const PROFILE = profileToml('memo', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'], grants: { echo: {} } },
  worker: { instructions: 'Work.', grants: { echo: { tools: ['echo'] } } },
});

async function world(profile = PROFILE): Promise<World> {
  return makeWorld({ registry: echoServer('echo', { tools: 'echo,ping' }), profile });
}

function request(w: World, nameOrPath = w.packDir, cwd = w.workDir): CompileRequest {
  const dirs = resolveDirectories(w.env, w.home, {
    configDir: w.configDir,
    dataDir: w.dataDir,
    stateDir: w.stateDir,
  });
  return { nameOrPath, dirs, cwd, env: w.env };
}

/** compileOrReuse, and whether it compiled. */
async function launch(req: CompileRequest): Promise<{
  compiled: boolean;
  result: Awaited<ReturnType<typeof compileOrReuse>>;
}> {
  const before = calls.count;
  const result = await compileOrReuse(req);
  return { compiled: calls.count > before, result };
}

async function memoEntries(w: World): Promise<string[]> {
  return (await readdir(join(w.dataDir, MEMO_DIR)).catch(() => [])).filter((n) =>
    n.endsWith('.json'),
  );
}

beforeEach(() => {
  calls.count = 0;
});

describe('compile memo', () => {
  it('reuses the snapshot of unchanged inputs, with the same plan and warnings', async () => {
    const w = await world(
      PROFILE.replace('description = "worker"', 'description = "worker"\nnetwork_access = true'),
    );
    const first = await launch(request(w));
    expect(first.compiled).toBe(true);
    expect(first.result.created).toBe(true);
    expect(first.result.diagnostics.map((d) => d.code)).toContain('network-access-ignored');
    const entries = await memoEntries(w);
    expect(entries).toHaveLength(1);
    // private to the operator, like the rest of codex-mmo's own files
    expect((await stat(join(w.dataDir, MEMO_DIR))).mode & 0o777).toBe(0o700);
    expect((await stat(join(w.dataDir, MEMO_DIR, entries[0] ?? ''))).mode & 0o777).toBe(0o600);

    const second = await launch(request(w));
    expect(second.compiled).toBe(false);
    expect(second.result.created).toBe(false);
    expect(second.result.stored?.id).toBe(first.result.stored?.id);
    expect(second.result.stored?.snapshot).toEqual(first.result.stored?.snapshot);
    expect(JSON.stringify(second.result.plan)).toBe(JSON.stringify(first.result.plan));
    expect(second.result.diagnostics).toEqual(first.result.diagnostics);

    // the same as what a compile now says
    const fresh = await compileProfile(request(w));
    expect(fresh.stored?.id).toBe(second.result.stored?.id);
    expect(JSON.stringify(fresh.plan)).toBe(JSON.stringify(second.result.plan));
    expect(fresh.diagnostics).toEqual(second.result.diagnostics);
  });

  const changes: [string, (w: World) => Promise<void>][] = [
    [
      'a fragment edited',
      async (w) => {
        const file = join(w.configDir, 'tool-mcp.d', '10-test.toml');
        const text = await readFile(file, 'utf8');
        await writeFile(file, text.replace('approve', 'prompt'));
      },
    ],
    [
      'a fragment added',
      (w) =>
        writeFile(
          join(w.configDir, 'tool-mcp.d', '20-more.toml'),
          `schema_version = 8\n${echoServer('other')}`,
        ),
    ],
    [
      'a non-fragment file added to tool-mcp.d',
      (w) => writeFile(join(w.configDir, 'tool-mcp.d', 'notes.txt'), 'x'),
    ],
    [
      'a fragment mode changed',
      (w) => chmod(join(w.configDir, 'tool-mcp.d', '10-test.toml'), 0o600),
    ],
    [
      'profile.toml edited',
      async (w) => {
        const file = join(w.packDir, 'profile.toml');
        await writeFile(file, (await readFile(file, 'utf8')).replace('Work.', 'Work hard.'));
      },
    ],
    ['a file added to the pack', (w) => writeFile(join(w.packDir, 'extra.md'), 'more')],
    [
      'codex-base.toml added',
      (w) => writeFile(join(w.configDir, 'codex-base.toml'), 'model = "gpt-5"\n'),
    ],
    ['tool-mcp.lock added', (w) => writeFile(join(w.configDir, 'tool-mcp.lock'), 'garbage')],
  ];

  it.each(changes)('compiles again after %s', async (_name, change) => {
    const w = await world();
    expect((await launch(request(w))).compiled).toBe(true);
    expect((await launch(request(w))).compiled).toBe(false);
    await change(w);
    const after = await launch(request(w));
    expect(after.compiled).toBe(true);
    const fresh = await compileProfile(request(w));
    expect(after.result.stored?.id).toBe(fresh.stored?.id);
    expect(after.result.diagnostics).toEqual(fresh.diagnostics);
  });

  it('follows an instruction file the pack references', async () => {
    const w = await world(
      PROFILE.replace('instructions = "Work."', 'instructions_file = "worker.md"'),
    );
    await writeFile(join(w.packDir, 'worker.md'), 'first text');
    const first = await launch(request(w));
    expect(first.compiled).toBe(true);
    expect(first.result.stored).toBeDefined();
    await writeFile(join(w.packDir, 'worker.md'), 'second text');
    const second = await launch(request(w));
    expect(second.compiled).toBe(true);
    expect(second.result.stored?.id).not.toBe(first.result.stored?.id);
    expect(JSON.stringify(second.result.stored?.snapshot)).toContain('second text');
  });

  it('tells a pack path from an installed pack of the same name', async () => {
    const w = await world();
    const installed = await installPack(w.packDir, w.dataDir);
    expect(installed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const byName = await launch(request(w, 'memo'));
    expect(byName.compiled).toBe(true);
    expect((await launch(request(w, 'memo'))).compiled).toBe(false);
    // a pack directory named like the installed pack in the working directory takes precedence
    const local = join(w.workDir, 'memo');
    await mkdir(local);
    await writeFile(
      join(local, 'profile.toml'),
      `schema_version = 8\n${PROFILE.replace('Work.', 'Local work.')}`,
    );
    const byPath = await launch(request(w, 'memo'));
    expect(byPath.compiled).toBe(true);
    expect(JSON.stringify(byPath.result.stored?.snapshot)).toContain('Local work.');
    await rm(local, { recursive: true });
    const backToInstalled = await launch(request(w, 'memo'));
    expect(backToInstalled.compiled).toBe(false);
    expect(backToInstalled.result.stored?.id).toBe(byName.result.stored?.id);
  });

  it('does not remember a failed compile', async () => {
    const w = await world(PROFILE.replace('grants', 'grants').replace('echo = {}', ''));
    await writeFile(join(w.packDir, 'profile.toml'), 'schema_version = 8\nname = 1\n');
    const failed = await launch(request(w));
    expect(failed.result.stored).toBeUndefined();
    expect(await memoEntries(w)).toEqual([]);
    expect((await launch(request(w))).compiled).toBe(true);
  });

  it('compiles when the remembered snapshot is gone, and stores it again', async () => {
    const w = await world();
    const first = await launch(request(w));
    await chmod(first.result.stored?.dir ?? '', 0o755);
    await rm(first.result.stored?.dir ?? '', { recursive: true });
    const again = await launch(request(w));
    expect(again.compiled).toBe(true);
    expect(again.result.created).toBe(true);
    expect(again.result.stored?.id).toBe(first.result.stored?.id);
  });

  it('never trusts a damaged or mismatched memo entry', async () => {
    const w = await world();
    const other = await world(PROFILE.replace('name = "memo"', 'name = "other"'));
    const first = await launch(request(w));
    const key = compileKey(request(w));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const file = join(w.dataDir, MEMO_DIR, `${key ?? ''}.json`);
    const entry = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;

    // a valid snapshot of another profile, whose plan differs from the remembered one
    const foreign = await compileProfile(request(other));
    const copied = await readSnapshot(other.dataDir, foreign.stored?.id ?? '');
    await storeSnapshot(w.dataDir, copied.snapshot);
    const tampered = [
      '{not json',
      JSON.stringify({ ...entry, snapshot: foreign.stored?.id }),
      JSON.stringify({ ...entry, key: '0'.repeat(64) }),
      JSON.stringify({
        ...entry,
        diagnostics: [{ severity: 'error', code: 'x', message: 'planted' }],
      }),
      JSON.stringify({ ...entry, plan: { ...(entry.plan as object), root: 'worker' } }),
    ];
    for (const text of tampered) {
      await chmod(file, 0o600);
      await writeFile(file, text);
      expect(await recallCompile(w.dataDir, key ?? '')).toBeUndefined();
      const run = await launch(request(w));
      expect(run.compiled).toBe(true);
      expect(run.result.stored?.id).toBe(first.result.stored?.id);
    }
  });

  it('does not fingerprint a pack reaching a directory through a symbolic link', async () => {
    const w = await world();
    await mkdir(join(w.root, 'elsewhere'));
    await symlink(join(w.root, 'elsewhere'), join(w.packDir, 'linked'));
    expect(compileKey(request(w))).toBeUndefined();
    const first = await launch(request(w));
    const second = await launch(request(w));
    expect(first.compiled && second.compiled).toBe(true);
    expect(second.result.stored?.id).toBe(first.result.stored?.id);
    await unlink(join(w.packDir, 'linked'));
    expect(compileKey(request(w))).toMatch(/^[0-9a-f]{64}$/);
  });

  it(`keeps the newest ${MEMO_KEEP} entries`, async () => {
    const w = await world();
    const result = await compileProfile(request(w));
    for (let i = 0; i < MEMO_KEEP + 5; i++) {
      await rememberCompile(w.dataDir, i.toString(16).padStart(64, '0'), result);
    }
    expect(await memoEntries(w)).toHaveLength(MEMO_KEEP);
  });
});
