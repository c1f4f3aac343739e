/**
 * Session directories under `<state>/sessions/<id>/`: `session.json` (written atomically by the
 * supervising process, the only writer), one private Codex home per process under `homes/`, logs
 * under `logs/`, and a `stop-requested` marker left by `session stop`.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { CodexMmoError, IoError, describeError } from '../../foundation/errors.js';
import { writeFileAtomic } from '../../foundation/paths/atomic-write.js';
import { isSessionId } from './session-id.js';
import { SESSION_FORMAT, type SessionRecord } from './session-record.js';

export function sessionsDir(stateDir: string): string {
  return join(stateDir, 'sessions');
}

export function sessionDir(stateDir: string, id: string): string {
  return join(sessionsDir(stateDir), id);
}

export interface SessionPaths {
  readonly dir: string;
  readonly record: string;
  readonly homes: string;
  readonly logs: string;
  readonly stopMarker: string;
}

export function sessionPaths(dir: string): SessionPaths {
  return {
    dir,
    record: join(dir, 'session.json'),
    homes: join(dir, 'homes'),
    logs: join(dir, 'logs'),
    stopMarker: join(dir, 'stop-requested'),
  };
}

/** Creates the session directory and its `homes/` and `logs/`, private to the user. */
export async function createSessionDir(dir: string): Promise<SessionPaths> {
  const paths = sessionPaths(dir);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await mkdir(paths.homes, { mode: 0o700 });
    await mkdir(paths.logs, { mode: 0o700 });
  } catch (error) {
    throw new IoError(dir, `cannot create session directory ${dir}: ${describeError(error)}`, {
      cause: error,
    });
  }
  return paths;
}

/** Writes `session.json` by write-to-temp-then-rename, so readers never see a partial file. */
export async function writeSessionRecord(dir: string, record: SessionRecord): Promise<void> {
  const file = sessionPaths(dir).record;
  await writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`, 0o600, { durable: false });
}

function isRecordShape(value: unknown): value is SessionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    v.format === SESSION_FORMAT &&
    typeof v.id === 'string' &&
    typeof v.status === 'string' &&
    typeof v.pid === 'number' &&
    Array.isArray(v.processes)
  );
}

/** Reads one session's record; CodexMmoError 'not-found' when there is none. */
export async function readSessionRecord(dir: string): Promise<SessionRecord> {
  const file = sessionPaths(dir).record;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CodexMmoError('not-found', `no session at ${dir}`);
    }
    throw new IoError(file, `cannot read ${file}: ${describeError(error)}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new IoError(file, `${file} is not valid JSON`);
  }
  if (!isRecordShape(parsed)) throw new IoError(file, `${file} is not a codex-mmo session record`);
  return parsed;
}

/** Every readable session record, oldest first. Unreadable entries are skipped. */
export async function listSessionRecords(stateDir: string): Promise<SessionRecord[]> {
  let names: string[];
  try {
    names = await readdir(sessionsDir(stateDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new IoError(sessionsDir(stateDir), `cannot read ${sessionsDir(stateDir)}`, {
      cause: error,
    });
  }
  const records: SessionRecord[] = [];
  for (const name of names.filter(isSessionId).sort()) {
    try {
      records.push(await readSessionRecord(sessionDir(stateDir, name)));
    } catch {
      // a session directory being created or removed right now
    }
  }
  return records;
}

/**
 * Finds a session by full id or unique prefix. CodexMmoError 'not-found' when none matches,
 * 'usage-error' when the prefix is ambiguous.
 */
export async function locateSession(stateDir: string, idOrPrefix: string): Promise<string> {
  let names: string[];
  try {
    names = (await readdir(sessionsDir(stateDir))).filter(isSessionId);
  } catch {
    names = [];
  }
  if (names.includes(idOrPrefix)) return sessionDir(stateDir, idOrPrefix);
  const matches = idOrPrefix === '' ? [] : names.filter((n) => n.startsWith(idOrPrefix));
  if (matches.length === 1 && matches[0] !== undefined) return sessionDir(stateDir, matches[0]);
  if (matches.length > 1) {
    throw new CodexMmoError(
      'usage-error',
      `session id prefix '${idOrPrefix}' matches ${matches.length} sessions; give more characters`,
    );
  }
  throw new CodexMmoError(
    'not-found',
    `no session '${idOrPrefix}'; run 'codex-mmo session list' to see sessions`,
  );
}

export async function stopRequested(dir: string): Promise<boolean> {
  try {
    await stat(sessionPaths(dir).stopMarker);
    return true;
  } catch {
    return false;
  }
}

export async function markStopRequested(dir: string): Promise<void> {
  await writeFile(sessionPaths(dir).stopMarker, `${new Date().toISOString()}\n`, { mode: 0o600 });
}
