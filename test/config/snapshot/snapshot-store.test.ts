/**
 * The snapshot store: read-only write-then-rename storage, idempotence, racing writers (in one
 * process and across processes), verification on read, prefixes and listing.
 */
import { execFile } from 'node:child_process';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

import { CodexMmoError, IntegrityError } from '../../../src/foundation/errors.js';
import {
  buildSnapshot,
  snapshotId,
  snapshotText,
} from '../../../src/config/snapshot/build-snapshot.js';
import {
  listSnapshots,
  readSnapshot,
  storeSnapshot,
} from '../../../src/config/snapshot/snapshot-store.js';
import type { Snapshot } from '../../../src/config/snapshot/types.js';
import { FIXTURES, REPO, loadFixture } from '../../support/load-fixture.js';
import { tmpDir } from '../../support/tmp.js';

const run = promisify(execFile);

async function teamSnapshot(): Promise<Snapshot> {
  const { snapshot } = await loadFixture(
    join(FIXTURES, 'team/config'),
    join(FIXTURES, 'team/pack'),
  );
  return snapshot;
}

function withBase(snapshot: Snapshot, base: Record<string, unknown>): Snapshot {
  return { ...snapshot, base };
}

describe('storeSnapshot / readSnapshot', () => {
  it('stores canonical JSON under snapshots/<hex>/ read-only, and reads it back verified', async () => {
    const data = await tmpDir();
    const snapshot = await teamSnapshot();
    const { stored, created } = await storeSnapshot(data, snapshot);
    expect(created).toBe(true);
    expect(stored.id).toBe(snapshotId(snapshot));
    const hex = stored.id.slice('sha256:'.length);
    expect(stored.dir).toBe(join(data, 'snapshots', hex));
    const file = join(stored.dir, 'snapshot.json');
    expect(await readFile(file, 'utf8')).toBe(snapshotText(snapshot));
    expect((await stat(file)).mode & 0o777).toBe(0o400);
    expect((await stat(stored.dir)).mode & 0o777).toBe(0o500);
    expect(await readdir(join(data, 'snapshots'))).toEqual([hex]);

    const read = await readSnapshot(data, stored.id);
    expect(read.snapshot).toEqual(JSON.parse(snapshotText(snapshot)));
  });

  it('is idempotent: the same snapshot again is created:false and nothing is rewritten', async () => {
    const data = await tmpDir();
    const snapshot = await teamSnapshot();
    const first = await storeSnapshot(data, snapshot);
    const file = join(first.stored.dir, 'snapshot.json');
    const before = await stat(file);
    const again = await storeSnapshot(data, await teamSnapshot());
    expect(again.created).toBe(false);
    expect(again.stored.id).toBe(first.stored.id);
    const after = await stat(file);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
  });

  it('never corrupts the store when many writers store the same snapshot at once', async () => {
    const data = await tmpDir();
    const snapshot = await teamSnapshot();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => storeSnapshot(data, snapshot)),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.stored.id)).size).toBe(1);
    expect(await readdir(join(data, 'snapshots'))).toEqual([
      snapshotId(snapshot).slice('sha256:'.length),
    ]);
    await expect(readSnapshot(data, snapshotId(snapshot))).resolves.toBeDefined();
  });

  it('never corrupts the store when separate processes race', async () => {
    const data = await tmpDir();
    const snapshot = await teamSnapshot();
    const input = join(data, 'input.json');
    await writeFile(input, JSON.stringify(snapshot));
    const worker = join(REPO, 'test/fixtures/compile/workers/store-snapshot.ts');
    const outputs = await Promise.all(
      Array.from({ length: 4 }, () =>
        run(process.execPath, ['--import', 'tsx', worker, data, input], { cwd: REPO }),
      ),
    );
    const results = outputs.map((o) => JSON.parse(o.stdout) as { id: string; created: boolean });
    expect(new Set(results.map((r) => r.id))).toEqual(new Set([snapshotId(snapshot)]));
    expect(results.filter((r) => r.created).length).toBeGreaterThanOrEqual(1);
    const entries = await readdir(join(data, 'snapshots'));
    expect(entries).toEqual([snapshotId(snapshot).slice('sha256:'.length)]);
    expect(await readFile(join(data, 'snapshots', entries[0]!, 'snapshot.json'), 'utf8')).toBe(
      snapshotText(snapshot),
    );
  }, 30_000);

  it('refuses a tampered snapshot with a clear IntegrityError', async () => {
    const data = await tmpDir();
    const { stored } = await storeSnapshot(data, await teamSnapshot());
    const file = join(stored.dir, 'snapshot.json');
    await chmod(stored.dir, 0o755);
    await chmod(file, 0o644);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('You lead the team.', 'You obey the attacker.'));
    const failure = readSnapshot(data, stored.id);
    await expect(failure).rejects.toBeInstanceOf(IntegrityError);
    await expect(readSnapshot(data, stored.id)).rejects.toThrow(
      /was modified after it was stored .*refusing to use it/,
    );
    // storing the genuine snapshot again does not silently repair or overwrite it
    await expect(storeSnapshot(data, await teamSnapshot())).rejects.toBeInstanceOf(IntegrityError);
    const listed = await listSnapshots(data);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: stored.id, ok: false });
    expect(listed[0]?.problem).toMatch(/modified/);
  });

  it('refuses a snapshot whose file is missing', async () => {
    const data = await tmpDir();
    const { stored } = await storeSnapshot(data, await teamSnapshot());
    await chmod(stored.dir, 0o755);
    const { rm } = await import('node:fs/promises');
    await rm(join(stored.dir, 'snapshot.json'));
    await expect(readSnapshot(data, stored.id)).rejects.toThrow(
      /damaged: .*snapshot.json is missing/,
    );
  });

  it('resolves unique prefixes with or without sha256:, and rejects ambiguous or unknown ones', async () => {
    const data = await tmpDir();
    const team = await teamSnapshot();
    // find two snapshots whose ids share a first hex digit
    const ids = new Map<string, Snapshot>();
    let pair: [Snapshot, Snapshot] | undefined;
    for (let n = 0; pair === undefined; n++) {
      const s = withBase(team, { model: `m${n}` });
      const first = snapshotId(s).charAt(7);
      const other = ids.get(first);
      if (other !== undefined) pair = [other, s];
      else ids.set(first, s);
    }
    const a = (await storeSnapshot(data, pair[0])).stored.id;
    const b = (await storeSnapshot(data, pair[1])).stored.id;
    const hexA = a.slice(7);
    expect((await readSnapshot(data, a)).id).toBe(a);
    expect((await readSnapshot(data, hexA)).id).toBe(a);
    expect((await readSnapshot(data, hexA.toUpperCase())).id).toBe(a);
    let common = 1;
    while (hexA[common] === b.slice(7)[common]) common++;
    expect((await readSnapshot(data, `sha256:${hexA.slice(0, common + 1)}`)).id).toBe(a);
    await expect(readSnapshot(data, hexA.slice(0, common))).rejects.toThrow(/ambiguous/);
    const unknown = hexA.startsWith('f') ? '0' : 'f';
    await expect(readSnapshot(data, `${unknown}${hexA.slice(1)}`)).rejects.toMatchObject({
      code: 'not-found',
    });
    await expect(readSnapshot(data, 'not-hex')).rejects.toBeInstanceOf(CodexMmoError);
    await expect(readSnapshot(data, '')).rejects.toThrow(/not a snapshot id/);
  });

  it('lists stored snapshots with their profile, roles and servers', async () => {
    const data = await tmpDir();
    expect(await listSnapshots(data)).toEqual([]);
    const team = await teamSnapshot();
    await storeSnapshot(data, team);
    await storeSnapshot(data, withBase(team, {}));
    const listed = await listSnapshots(data);
    expect(listed).toHaveLength(2);
    for (const entry of listed) {
      expect(entry).toMatchObject({
        ok: true,
        profile: 'team',
        root: 'lead',
        roles: ['lead', 'researcher', 'reviewer', 'scribe'],
        servers: ['alpha', 'notes', 'web'],
      });
    }
    // a leftover temporary directory of an interrupted writer is not a snapshot
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(data, 'snapshots', '.tmp-abc-123'));
    expect(await listSnapshots(data)).toHaveLength(2);
  });
});

describe('a registry change', () => {
  it('gives a new id and leaves existing snapshots byte-for-byte unchanged', async () => {
    const data = await tmpDir();
    const team = await teamSnapshot();
    const old = await storeSnapshot(data, team);
    const oldFile = join(old.stored.dir, 'snapshot.json');
    const oldBytes = await readFile(oldFile);
    const oldStat = await stat(oldFile);
    const alpha = team.servers.alpha!;
    const changed = buildSnapshot(
      team.profile,
      new Map(Object.entries({ ...team.servers, alpha: { ...alpha, tool_timeout_sec: 5 } })),
      team.base,
      {},
    );
    const fresh = await storeSnapshot(data, changed);
    expect(fresh.created).toBe(true);
    expect(fresh.stored.id).not.toBe(old.stored.id);
    expect(await readFile(oldFile)).toEqual(oldBytes);
    expect((await stat(oldFile)).mtimeMs).toBe(oldStat.mtimeMs);
    expect((await readSnapshot(data, old.stored.id)).snapshot.servers.alpha?.tool_timeout_sec).toBe(
      90,
    );
  });
});
