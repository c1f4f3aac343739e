/**
 * `session prune`: ended sessions go, running ones stay — judged by the liveness of the
 * supervising process and of every recorded Codex process, as `session list` judges it.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  SESSION_FORMAT,
  type SessionRecord,
} from '../../../../src/runtime/session/session-record.js';
import {
  createSessionDir,
  sessionDir,
  writeSessionRecord,
} from '../../../../src/runtime/session/session-store.js';
import { runCli } from '../../../support/cli.js';
import { tmpDir } from '../../../support/tmp.js';

/** A pid no process has (above the kernel's largest pid). */
const DEAD_PID = 0x7ffffff0;
const DAY = 24 * 60 * 60 * 1000;

function record(
  id: string,
  status: SessionRecord['status'],
  pid: number,
  endedDaysAgo?: number,
  processPid?: number,
): SessionRecord {
  const ended =
    endedDaysAgo !== undefined
      ? new Date(Date.now() - endedDaysAgo * DAY).toISOString()
      : undefined;
  return {
    format: SESSION_FORMAT,
    id,
    profile: 'p',
    snapshot: `sha256:${'a'.repeat(64)}`,
    mode: 'exec',
    cwd: '/',
    started: new Date(Date.now() - 40 * DAY).toISOString(),
    ...(ended !== undefined ? { ended } : {}),
    status,
    pid,
    mesh_socket: '/nonexistent.sock',
    processes: [
      {
        id: 'root',
        role: 'lead',
        kind: 'root',
        ...(processPid !== undefined ? { pid: processPid } : {}),
        home: '/nonexistent',
        cwd: '/',
        status: processPid !== undefined ? 'running' : 'ended',
        started: new Date().toISOString(),
      },
    ],
  };
}

async function stateWith(records: SessionRecord[]): Promise<string> {
  const state = await tmpDir('codex-mmo-prune-');
  for (const r of records) {
    const dir = sessionDir(state, r.id);
    const paths = await createSessionDir(dir);
    // a read-only tree inside, as Codex homes can have
    await mkdir(join(paths.homes, 'root', 'ro'), { recursive: true, mode: 0o500 });
    await writeFile(join(paths.logs, 'codex.log'), 'log\n');
    await writeSessionRecord(dir, r);
  }
  return state;
}

const ids = {
  oldEnded: '20260101T000000000Z-00000001',
  newEnded: '20260101T000000000Z-00000002',
  running: '20260101T000000000Z-00000003',
  orphaned: '20260101T000000000Z-00000004',
  leftover: '20260101T000000000Z-00000005',
  failed: '20260101T000000000Z-00000006',
};

function allRecords(): SessionRecord[] {
  return [
    record(ids.oldEnded, 'ended', DEAD_PID, 10),
    record(ids.newEnded, 'stopped', DEAD_PID, 1),
    // recorded as running and its supervisor (this test process) is alive
    record(ids.running, 'running', process.pid, undefined, process.pid),
    // recorded as running, but the supervisor and its processes are gone
    record(ids.orphaned, 'running', DEAD_PID, undefined, DEAD_PID),
    // supervisor gone, yet a recorded Codex process still lives
    record(ids.leftover, 'running', DEAD_PID, undefined, process.pid),
    record(ids.failed, 'failed', DEAD_PID, 30),
  ];
}

interface PruneJson {
  removed: { id: string; status: string }[];
  kept: { id: string; reason: string }[];
}

describe('session prune', () => {
  it('removes every ended session and keeps running ones', async () => {
    const state = await stateWith(allRecords());
    const result = await runCli(['session', 'prune', '--json', '--state-dir', state]);
    expect(result.code, result.stderr).toBe(0);
    const out = result.json<PruneJson>();
    expect(out.removed.map((r) => r.id).sort()).toEqual(
      [ids.oldEnded, ids.newEnded, ids.orphaned, ids.failed].sort(),
    );
    expect(out.kept).toEqual([
      { id: ids.running, reason: 'running' },
      { id: ids.leftover, reason: 'process-alive' },
    ]);
    expect((await readdir(join(state, 'sessions'))).sort()).toEqual(
      [ids.running, ids.leftover].sort(),
    );
    // session list agrees
    const list = await runCli(['session', 'list', '--json', '--state-dir', state]);
    expect(list.json<{ sessions: unknown[] }>().sessions).toHaveLength(2);
  });

  it('--older-than keeps sessions that ended more recently', async () => {
    const state = await stateWith(allRecords());
    const result = await runCli([
      'session',
      'prune',
      '--older-than',
      '7',
      '--json',
      '--state-dir',
      state,
    ]);
    expect(result.code).toBe(0);
    const out = result.json<PruneJson>();
    // the orphaned session has no end time: its start (40 days ago) counts
    expect(out.removed.map((r) => r.id).sort()).toEqual(
      [ids.oldEnded, ids.orphaned, ids.failed].sort(),
    );
    expect(out.kept).toContainEqual({ id: ids.newEnded, reason: 'too-recent' });
    const text = await runCli(['session', 'prune', '--older-than', '0.5', '--state-dir', state]);
    expect(text.stdout).toContain(`removed ${ids.newEnded}`);
  });

  it('leaves a directory without a readable record alone, and rejects a bad --older-than', async () => {
    const state = await stateWith([]);
    await mkdir(join(state, 'sessions', ids.oldEnded), { recursive: true });
    const result = await runCli(['session', 'prune', '--json', '--state-dir', state]);
    expect(result.json<PruneJson>()).toEqual({ removed: [], kept: [] });
    expect(await readdir(join(state, 'sessions'))).toEqual([ids.oldEnded]);
    const bad = await runCli(['session', 'prune', '--older-than', 'soon', '--state-dir', state]);
    expect(bad.code).toBe(2);
  });
});
