/**
 * `snapshot rm ID`: removes one stored snapshot at once, unless a running session uses it; a
 * session recorded as running whose supervisor is gone does not hold it. Stored snapshots and
 * their directory are private to the operator.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { processStartTime } from '../../src/foundation/process/session-marker.js';
import { newSessionId } from '../../src/runtime/session/session-id.js';
import { SESSION_FORMAT, type SessionRecord } from '../../src/runtime/session/session-record.js';
import { createSessionDir, writeSessionRecord } from '../../src/runtime/session/session-store.js';
import { storeSnapshot } from '../../src/config/snapshot/snapshot-store.js';
import { FIXTURES, loadFixture } from '../support/load-fixture.js';
import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

function record(id: string, snapshot: string, pid: number): SessionRecord {
  return {
    format: SESSION_FORMAT,
    id,
    profile: 'team',
    snapshot,
    mode: 'exec',
    cwd: '/',
    started: new Date().toISOString(),
    status: 'running',
    pid,
    ...((start) => (start !== undefined ? { pid_start: start } : {}))(processStartTime(pid)),
    mesh_socket: '/nonexistent.sock',
    processes: [],
  };
}

describe('snapshot rm', () => {
  it('refuses while a running session uses it, then removes it', async () => {
    const base = await tmpDir();
    const data = join(base, 'data');
    const state = join(base, 'state');
    const { snapshot } = await loadFixture(
      join(FIXTURES, 'team/config'),
      join(FIXTURES, 'team/pack'),
    );
    const { stored } = await storeSnapshot(data, snapshot);
    expect((await stat(join(data, 'snapshots'))).mode & 0o077).toBe(0);
    expect((await stat(join(stored.dir, 'snapshot.json'))).mode & 0o777).toBe(0o400);

    const id = newSessionId(new Date());
    const dir = join(state, 'sessions', id);
    await createSessionDir(dir);
    // this test process stands in for a running supervisor
    await writeSessionRecord(dir, record(id, stored.id, process.pid));
    const cli = (args: string[]) =>
      runCli([...args, '--data-dir', data, '--state-dir', state], { home: base });
    const refused = await cli(['snapshot', 'rm', stored.id.slice(7, 19)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[snapshot-in-use]');
    expect(refused.stderr).toContain(id);
    expect((await stat(stored.dir)).isDirectory()).toBe(true);

    // the supervisor is gone: the session no longer holds the snapshot
    await writeSessionRecord(dir, record(id, stored.id, 2 ** 22 + 12345));
    const removed = await cli(['snapshot', 'rm', stored.id, '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.json()).toEqual({ removed: stored.id, ended_sessions: [id] });
    await expect(stat(stored.dir)).rejects.toThrow();
    const again = await cli(['snapshot', 'rm', stored.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not-found');
  });
});
