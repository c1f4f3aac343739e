/**
 * The threads an ended home keeps: the top-level thread written last is the process's own (a
 * native sub-agent's rollout never is), rollouts are found only where Codex writes them (regular
 * files, named as Codex names them, a bounded depth down), and a copy into a new home keeps their
 * paths with private modes and leaves symlinks behind (a linked home or sessions directory too).
 */
import { mkdir, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  copyRollouts,
  processThread,
  topLevelThreadOf,
} from '../../../src/runtime/session/rollout-threads.js';
import { tmpDir } from '../../support/tmp.js';

const ROOT_A = '01a24da5-6412-7b82-8444-7eafe997b477';
const ROOT_B = '01a24da5-6717-7283-91fa-def1fa74a34e';
const CHILD = '01a24da5-b6fa-7763-9781-5cd648e056f8';

const meta = (id: string, source: unknown): string =>
  `${JSON.stringify({ type: 'session_meta', payload: { id, source, base_instructions: { text: 'x'.repeat(100_000) } } })}\n{"type":"event"}\n`;

async function rollout(home: string, id: string, source: unknown, mtime: number): Promise<string> {
  const dir = join(home, 'sessions', '2026', '12', '06');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `rollout-2026-12-06T23-16-54-${id}.jsonl`);
  await writeFile(file, meta(id, source));
  await utimes(file, mtime, mtime);
  return file;
}

describe('rollout threads', () => {
  it('reads a session_meta line: top-level sources are words, a sub-agent names its parent', () => {
    expect(topLevelThreadOf(meta(ROOT_A, 'vscode').split('\n')[0] ?? '')).toBe(ROOT_A);
    expect(topLevelThreadOf(meta(ROOT_A, 'cli').split('\n')[0] ?? '')).toBe(ROOT_A);
    const child = { subagent: { thread_spawn: { parent_thread_id: ROOT_A } } };
    expect(topLevelThreadOf(meta(CHILD, child).split('\n')[0] ?? '')).toBeUndefined();
    expect(topLevelThreadOf('{"type":"event"}')).toBeUndefined();
    expect(topLevelThreadOf('not json')).toBeUndefined();
    expect(topLevelThreadOf(meta('../../etc', 'cli').split('\n')[0] ?? '')).toBeUndefined();
  });

  it("takes the top-level thread written last as the process's own", async () => {
    const home = await tmpDir();
    await rollout(home, ROOT_A, 'vscode', 1_000);
    await rollout(home, ROOT_B, 'vscode', 2_000);
    // a sub-agent's thread written later still is not the process's own
    await rollout(home, CHILD, { subagent: { thread_spawn: {} } }, 3_000);
    expect((await processThread(home))?.id).toBe(ROOT_B);
    expect(await processThread(await tmpDir())).toBeUndefined();
  });

  it('copies only regular rollout files, privately, and finds nothing too deep', async () => {
    const from = await tmpDir();
    const to = await tmpDir();
    const file = await rollout(from, ROOT_A, 'cli', 1_000);
    const secret = join(from, 'secret.txt');
    await writeFile(secret, 'not a rollout');
    await symlink(secret, join(from, 'sessions', `rollout-2026-12-06T00-00-00-${ROOT_B}.jsonl`));
    await writeFile(join(from, 'sessions', 'notes.txt'), 'other');
    expect(await copyRollouts(from, to)).toBe(1);
    const copy = join(to, file.slice(from.length + 1));
    expect(await readFile(copy, 'utf8')).toBe(await readFile(file, 'utf8'));
    expect((await stat(copy)).mode & 0o777).toBe(0o600);
    expect((await processThread(to))?.id).toBe(ROOT_A);

    const deep = await tmpDir();
    const dir = join(deep, 'sessions', 'a', 'b', 'c', 'd', 'e');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `rollout-2026-12-06T00-00-00-${ROOT_A}.jsonl`), meta(ROOT_A, 'cli'));
    expect(await processThread(deep)).toBeUndefined();
  });

  it('follows no symlink: neither a home nor its sessions directory that is one', async () => {
    const elsewhere = await tmpDir();
    await rollout(elsewhere, ROOT_A, 'cli', 1_000);
    const home = await tmpDir();
    await symlink(join(elsewhere, 'sessions'), join(home, 'sessions'));
    expect(await processThread(home)).toBeUndefined();
    expect(await copyRollouts(home, await tmpDir())).toBe(0);
    const linked = join(await tmpDir(), 'home');
    await symlink(elsewhere, linked);
    expect(await processThread(linked)).toBeUndefined();
    expect(await copyRollouts(linked, await tmpDir())).toBe(0);
  });
});
