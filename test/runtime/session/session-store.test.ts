/**
 * Session ids, the session store (atomic record writes, listing, lookup by prefix), the effective
 * status of stale sessions, and the mesh socket path.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { isSessionId, newSessionId } from '../../../src/runtime/session/session-id.js';
import {
  effectiveRecord,
  type SessionRecord,
} from '../../../src/runtime/session/session-record.js';
import {
  createSessionDir,
  listSessionRecords,
  locateSession,
  readSessionRecord,
  sessionDir,
  writeSessionRecord,
} from '../../../src/runtime/session/session-store.js';
import { chooseSocketPath } from '../../../src/features/session/launch.js';
import { tmpDir } from '../../support/tmp.js';
import { sessionRecord } from '../../support/plan-fixture.js';

describe('session ids', () => {
  it('sort by start time and differ by their random part', () => {
    const a = newSessionId(new Date('2026-05-12T10:15:30.123Z'), Buffer.from([1, 2, 3, 4]));
    expect(a).toBe('20260512T101530123Z-01020304');
    expect(isSessionId(a)).toBe(true);
    const b = newSessionId(new Date('2026-05-12T10:15:30.124Z'));
    expect([b, a].sort()).toEqual([a, b]);
    expect(newSessionId()).not.toBe(newSessionId());
    expect(isSessionId('../etc')).toBe(false);
  });
});

describe('session store', () => {
  it('writes, reads, lists and finds sessions by unique prefix', async () => {
    const state = await tmpDir();
    expect(await listSessionRecords(state)).toEqual([]);
    const ids = [
      '20260101T000000000Z-aaaa0001',
      '20260101T000000000Z-aaaa0002',
      '20260102T000000000Z-bbbb0001',
    ];
    for (const id of [...ids].reverse()) {
      const paths = await createSessionDir(sessionDir(state, id));
      await writeSessionRecord(paths.dir, sessionRecord(id));
    }
    await mkdir(join(state, 'sessions', 'not-a-session'));
    expect((await listSessionRecords(state)).map((r) => r.id)).toEqual(ids);
    expect(await locateSession(state, '20260102')).toBe(sessionDir(state, ids[2] ?? ''));
    await expect(locateSession(state, '20260101')).rejects.toThrow(/matches 2 sessions/);
    await expect(locateSession(state, 'zzz')).rejects.toThrow(/no session 'zzz'/);
    const read = await readSessionRecord(sessionDir(state, ids[0] ?? ''));
    expect(read).toEqual(sessionRecord(ids[0] ?? ''));
    const text = await readFile(join(sessionDir(state, ids[0] ?? ''), 'session.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('shows a running session whose supervisor is gone as failed, and says so', () => {
    const stale = effectiveRecord(sessionRecord('x'), () => false);
    expect(stale.status).toBe('failed');
    expect(stale.processes[0]?.status).toBe('ended');
    expect(stale.error).toMatch(
      /^the supervising codex-mmo process \(pid \d+\) is gone without recording how the session ended; none of the session's processes is running$/,
    );
    // a recorded process pid that still exists is named, not assumed to be gone
    const supervisor = sessionRecord('w').pid;
    const leftover = effectiveRecord(
      sessionRecord('w', {
        processes: [
          { ...sessionRecord('w').processes[0]!, status: 'running', pid: 777_001 },
        ] as SessionRecord['processes'],
      }),
      (pid) => pid !== supervisor,
    );
    expect(leftover.processes[0]?.status).toBe('running');
    expect(leftover.error).toContain(
      'a process with the recorded pid of root (777001) still exists',
    );
    const live = sessionRecord('y');
    expect(effectiveRecord(live, () => true)).toBe(live);
    const done = sessionRecord('z', { status: 'failed' });
    expect(effectiveRecord(done, () => false)).toBe(done);
  });

  it('keeps the mesh socket path short enough for the OS', () => {
    expect(chooseSocketPath('/s/sessions/id', 'id', '/tmp')).toBe('/s/sessions/id/mesh.sock');
    const long = `/${'d'.repeat(120)}/sessions/id`;
    expect(chooseSocketPath(long, 'id', '/tmp')).toBe('/tmp/codex-mmo-id/mesh.sock');
  });
});
