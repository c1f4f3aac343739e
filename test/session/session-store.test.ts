/**
 * Session ids, the session store (atomic record writes, listing, lookup by prefix), the effective
 * status of stale sessions, and masking of credential values in child output.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it, vi } from 'vitest';

import { MASK, MaskingStream, maskSecrets } from '../../src/session/mask-secrets.js';
import { isSessionId, newSessionId } from '../../src/session/session-id.js';
import {
  effectiveRecord,
  SESSION_FORMAT,
  type SessionRecord,
} from '../../src/session/session-record.js';
import {
  createSessionDir,
  listSessionRecords,
  locateSession,
  readSessionRecord,
  sessionDir,
  writeSessionRecord,
} from '../../src/session/session-store.js';
import { chooseSocketPath } from '../../src/session/launch.js';
import { tmpDir } from '../helpers/tmp.js';

function record(id: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    format: SESSION_FORMAT,
    id,
    profile: 'team',
    snapshot: 'sha256:abc',
    mode: 'exec',
    cwd: '/work',
    started: '2026-01-01T00:00:00.000Z',
    status: 'running',
    pid: 999_999_999,
    mesh_socket: '/tmp/x.sock',
    processes: [
      {
        id: 'root',
        role: 'lead',
        kind: 'root',
        home: '/h',
        cwd: '/work',
        status: 'running',
        started: 's',
        pid: 999_999_998,
      },
    ],
    ...extra,
  };
}

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
      await writeSessionRecord(paths.dir, record(id));
    }
    await mkdir(join(state, 'sessions', 'not-a-session'));
    expect((await listSessionRecords(state)).map((r) => r.id)).toEqual(ids);
    expect(await locateSession(state, '20260102')).toBe(sessionDir(state, ids[2] ?? ''));
    await expect(locateSession(state, '20260101')).rejects.toThrow(/matches 2 sessions/);
    await expect(locateSession(state, 'zzz')).rejects.toThrow(/no session 'zzz'/);
    const read = await readSessionRecord(sessionDir(state, ids[0] ?? ''));
    expect(read).toEqual(record(ids[0] ?? ''));
    const text = await readFile(join(sessionDir(state, ids[0] ?? ''), 'session.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('shows a running session whose supervisor is gone as ended', () => {
    const stale = effectiveRecord(record('x'), () => false);
    expect(stale.status).toBe('ended');
    expect(stale.processes[0]?.status).toBe('ended');
    const live = record('y');
    expect(effectiveRecord(live, () => true)).toBe(live);
    const done = record('z', { status: 'failed' });
    expect(effectiveRecord(done, () => false)).toBe(done);
  });

  it('keeps the mesh socket path short enough for the OS', () => {
    expect(chooseSocketPath('/s/sessions/id', 'id', '/tmp')).toBe('/s/sessions/id/mesh.sock');
    const long = `/${'d'.repeat(120)}/sessions/id`;
    expect(chooseSocketPath(long, 'id', '/tmp')).toBe('/tmp/codex-mmo-id.sock');
  });
});

describe('masking', () => {
  it('replaces every credential value, longest first', () => {
    expect(maskSecrets('token=abcd1234 and abcd1234xyz; x', ['abcd1234', 'abcd1234xyz', 'x'])).toBe(
      `token=${MASK} and ${MASK}; x`,
    );
  });

  it('masks a value split across chunks of a stream', () => {
    vi.useFakeTimers();
    try {
      const out: string[] = [];
      const stream = new MaskingStream(['s3cret-value'], (t) => out.push(t));
      stream.push('first line s3cr');
      stream.push('et-value here\nsecond ');
      expect(out).toEqual([`first line ${MASK} here\n`]);
      vi.advanceTimersByTime(500);
      expect(out).toEqual([`first line ${MASK} here\n`, 'second ']);
      stream.push('s3cret-value');
      stream.end();
      expect(out.join('')).not.toContain('s3cret-value');
    } finally {
      vi.useRealTimers();
    }
  });
});
