/**
 * The remembered boundary probes: a first start probes this machine (containment, masks, the host
 * view of Codex's `bwrap`) and keeps what succeeded; the next start takes the entry without
 * probing, and the containment it holds becomes this process's. An entry of another format, one
 * that does not say the probes succeeded, or one naming a program no probe looks at (a planted
 * `bwrap` or `sleep`, a later way than the first a probe tries, a named pipe) is probed again;
 * another Codex binary has another key.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { containment, possibleContainments } from '../../../src/foundation/process/containment.js';
import { bwrapCandidates } from '../../../src/foundation/process/host-view.js';
import { resolveCodexLaunch } from '../../../src/runtime/codex/native-codex.js';
import {
  BOUNDARY_MEMO_DIR,
  boundaryMemoKey,
  machineBoundary,
} from '../../../src/runtime/session/boundary-memo.js';
import { TEST_CODEX_BIN } from '../../support/codex-bin.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mmo-boundary-'));
  dirs.push(dir);
  return dir;
}

describe('machineBoundary', () => {
  it('probes once, keeps what succeeded, and takes it from then on', async () => {
    const data = await dataDir();
    const codex = (await resolveCodexLaunch(TEST_CODEX_BIN)).command;
    const first = await machineBoundary(data, codex);
    expect(first.contained.available).toBe(true);
    expect(first.view?.available).toBe(true);
    const key = await boundaryMemoKey(codex);
    const file = join(data, BOUNDARY_MEMO_DIR, `${key}.json`);
    const kept = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(kept.contained).toEqual(first.contained);
    expect(kept.view).toEqual(first.view);
    // the next start reads the entry: another of the `bwrap` a probe looks at, written there, is
    // what it returns; one a probe never looks at is not taken, and probed again
    const found = first.view?.available === true ? first.view.bwrap : '';
    const other = bwrapCandidates(codex).find((b) => b !== found) ?? '';
    await writeFile(file, JSON.stringify({ ...kept, view: { available: true, bwrap: other } }));
    expect((await machineBoundary(data, codex)).view).toEqual({ available: true, bwrap: other });
    expect(containment()).toEqual(first.contained);
    await writeFile(file, JSON.stringify({ ...kept, view: { available: true, bwrap: '/tmp/x' } }));
    expect((await machineBoundary(data, codex)).view).toEqual(first.view);
    const planted = { ...first.contained, sleep: '/tmp/sleep' };
    await writeFile(file, JSON.stringify({ ...kept, contained: planted }));
    expect((await machineBoundary(data, codex)).contained).toEqual(first.contained);
    // nor a later way than the first a probe tries (as root: no user namespace)
    const later = possibleContainments()[1];
    if (later !== undefined) {
      await writeFile(file, JSON.stringify({ ...kept, contained: later }));
      expect((await machineBoundary(data, codex)).contained).toEqual(first.contained);
    }
    // a named pipe in the entry's place is not waited on
    await rm(file);
    execFileSync('mkfifo', [file]);
    expect((await machineBoundary(data, codex)).contained).toEqual(first.contained);
    // an entry that does not say the probes succeeded is probed again, and replaced
    await writeFile(file, JSON.stringify({ ...kept, contained: { available: false } }));
    expect((await machineBoundary(data, codex)).contained).toEqual(first.contained);
    await writeFile(file, JSON.stringify({ ...kept, format: 'other/1', view: { bwrap: '/x' } }));
    expect((await machineBoundary(data, codex)).view).toEqual(first.view);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(kept);
  }, 30_000);

  it('keys the entry by the Codex binary whose bwrap it probed', async () => {
    const data = await dataDir();
    const codex = (await resolveCodexLaunch(TEST_CODEX_BIN)).command;
    expect(await boundaryMemoKey(codex)).toBe(await boundaryMemoKey(codex));
    expect(await boundaryMemoKey(codex)).not.toBe(await boundaryMemoKey('/elsewhere/bin/codex'));
    const none = await machineBoundary(data, undefined);
    expect(none.view).toBeUndefined();
    expect(await readdir(join(data, BOUNDARY_MEMO_DIR))).toEqual([
      `${await boundaryMemoKey(undefined)}.json`,
    ]);
  }, 30_000);
});
