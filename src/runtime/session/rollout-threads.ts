/**
 * The Codex threads an ended process home keeps (`<home>/sessions/**\/rollout-*.jsonl`), read for
 * a resume: which thread was the process's own (a top-level thread, not a native sub-agent's),
 * and a copy of the rollouts into a new home, so Codex's `thread/resume` and `codex resume` find
 * the history there. Only directories and regular rollout files are read or copied.
 */
import { chmod, copyFile, lstat, mkdir, open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Where Codex keeps a home's rollouts. */
export const ROLLOUTS_DIR = 'sessions';
const ROLLOUT_FILE = /^rollout-[0-9T:-]+-[0-9a-f-]{36}\.jsonl$/;
/** The `session_meta` line carries the base instructions; no sane one is longer. */
const FIRST_LINE_MAX = 1024 * 1024;
const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Deeper than Codex's `YYYY/MM/DD` is not Codex's. */
const MAX_DEPTH = 4;

export interface RolloutThread {
  readonly id: string;
  readonly file: string;
  readonly modified: number;
}

/** Every rollout file under `dir` (regular files only, symlinks skipped), depth-bounded. */
async function rolloutFiles(dir: string, depth = 0): Promise<string[]> {
  if (depth > MAX_DEPTH) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map(async (e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return rolloutFiles(path, depth + 1);
      return e.isFile() && ROLLOUT_FILE.test(e.name) ? [path] : [];
    }),
  );
  return nested.flat();
}

/** The first line of a file, up to FIRST_LINE_MAX bytes (undefined when longer or unreadable). */
async function firstLine(file: string): Promise<string | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < FIRST_LINE_MAX) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      const end = chunk.indexOf(10);
      if (end >= 0) {
        chunks.push(Buffer.from(chunk.subarray(0, end)));
        return Buffer.concat(chunks).toString('utf8');
      }
      chunks.push(Buffer.from(chunk));
      total += bytesRead;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/** The thread id of a rollout whose `session_meta` names a top-level thread (not a sub-agent). */
export function topLevelThreadOf(line: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const meta = parsed as { type?: unknown; payload?: { id?: unknown; source?: unknown } };
  if (meta.type !== 'session_meta' || typeof meta.payload !== 'object') return undefined;
  const { id, source } = meta.payload;
  // a sub-agent's source is an object naming its parent; a top-level thread's is a word
  if (typeof id !== 'string' || !THREAD_ID.test(id)) return undefined;
  return source === undefined || typeof source === 'string' ? id : undefined;
}

/** The home's rollout directory, when it and the home are real directories (no symlink). */
async function rolloutsOf(home: string): Promise<string | undefined> {
  const dir = join(home, ROLLOUTS_DIR);
  for (const path of [home, dir]) {
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined || !info.isDirectory()) return undefined;
  }
  return dir;
}

/** The process's own thread in `home`: the top-level thread written last, if any. */
export async function processThread(home: string): Promise<RolloutThread | undefined> {
  const dir = await rolloutsOf(home);
  const files = dir === undefined ? [] : await rolloutFiles(dir);
  const threads = await Promise.all(
    files.map(async (file): Promise<RolloutThread | undefined> => {
      const line = await firstLine(file);
      const id = line === undefined ? undefined : topLevelThreadOf(line);
      if (id === undefined) return undefined;
      const info = await stat(file).catch(() => undefined);
      return info === undefined ? undefined : { id, file, modified: info.mtimeMs };
    }),
  );
  return threads
    .filter((t): t is RolloutThread => t !== undefined)
    .sort((a, b) => b.modified - a.modified)[0];
}

/** Copies every rollout of `fromHome` into `toHome` (files mode 0600, directories 0700). */
export async function copyRollouts(fromHome: string, toHome: string): Promise<number> {
  const source = await rolloutsOf(fromHome);
  if (source === undefined) return 0;
  const files = await rolloutFiles(source);
  for (const file of files) {
    const target = join(toHome, ROLLOUTS_DIR, file.slice(source.length + 1));
    await mkdir(join(target, '..'), { recursive: true, mode: 0o700 });
    await copyFile(file, target);
    await chmod(target, 0o600);
  }
  return files.length;
}
