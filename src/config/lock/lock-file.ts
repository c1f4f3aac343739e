/**
 * Reading and writing `<config>/tool-mcp.lock`. A missing lock file means no pins. Writes go to a
 * temporary file in the same directory, are flushed, then renamed over the lock, so a reader sees
 * either the old or the new lock, never half of one. Read-modify-write updates (`updateLock`) hold
 * an exclusive `tool-mcp.lock.lck` file meanwhile, so concurrent pins of different servers all land.
 */
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';

import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { IoError, describeError } from '../../foundation/errors.js';
import { writeFileAtomic } from '../../foundation/paths/atomic-write.js';
import { configFiles } from '../../foundation/paths/directories.js';
import { formatBytes, readConfigFile } from '../registry/read-config-file.js';
import type { ServerLease, ToolPin } from '../snapshot/types.js';
import {
  EMPTY_LOCK,
  leasesOf,
  parseLock,
  pinsOf,
  renderLock,
  type ParsedLock,
  type ToolLock,
} from './lock-format.js';

/** Largest lock file read (generated files stay far below this). */
export const MAX_LOCK_FILE_BYTES = 16 * 1024 * 1024;

export interface LockFileContents extends ParsedLock {
  /** Absolute path of the lock file, whether or not it exists. */
  readonly file: string;
  readonly exists: boolean;
}

/** Reads and parses the lock file in `configDir`; problems come back as diagnostics. */
export async function readLockFile(configDir: string): Promise<LockFileContents> {
  const file = configFiles(configDir).lock;
  const result = await readConfigFile(file, MAX_LOCK_FILE_BYTES);
  const failed = (message: string): LockFileContents => ({
    file,
    exists: true,
    lock: EMPTY_LOCK,
    usable: false,
    diagnostics: [diagnostic({ code: 'lock-file-unreadable', message, file })],
  });
  switch (result.kind) {
    case 'missing':
      return { file, exists: false, lock: EMPTY_LOCK, usable: true, diagnostics: [] };
    case 'not-a-file':
      return failed(
        `lock file is ${result.what}, not a regular file; remove it and run \`codex-mmo tool-mcp pin ID\` for each server again`,
      );
    case 'too-large':
      return failed(
        `lock file is ${formatBytes(result.size)}, over the ${formatBytes(result.limit)} limit; remove it and run \`codex-mmo tool-mcp pin ID\``,
      );
    case 'unreadable':
      return failed(`cannot read the lock file (${result.reason}); make it readable by you`);
    case 'ok':
      return { file, exists: true, ...parseLock(result.bytes, file) };
  }
}

/**
 * The pinned tool digests and leases of every server in `<configDir>/tool-mcp.lock` (a missing
 * lock file means no pins), with any problem reading or parsing it as diagnostics.
 */
export async function readLock(configDir: string): Promise<{
  pins: Record<string, ToolPin[]>;
  leases: Record<string, ServerLease>;
  diagnostics: Diagnostic[];
}> {
  const contents = await readLockFile(configDir);
  return {
    pins: pinsOf(contents.lock),
    leases: leasesOf(contents.lock),
    diagnostics: contents.diagnostics,
  };
}

/** Writes the whole lock atomically (temp file + fsync + rename). Throws IoError on failure. */
export async function writeLock(configDir: string, lock: ToolLock): Promise<string> {
  const file = configFiles(configDir).lock;
  const text = renderLock(lock);
  await writeFileAtomic(file, text, 0o600);
  return file;
}

/** How long `updateLock` waits for another update to finish before giving up. */
export const LOCK_WAIT_MS = 30_000;
/** A `.lck` file older than this is left over from a killed process and is taken over. */
export const STALE_LOCK_MS = 60_000;

/**
 * Applies `change` to the current lock and writes the result, holding `tool-mcp.lock.lck`
 * (created exclusively) from the read to the rename so no concurrent update is lost. `change`
 * returns undefined to write nothing (e.g. the lock on disk is unusable). Throws IoError when the
 * guard cannot be taken within `LOCK_WAIT_MS` or the lock cannot be written.
 */
export async function updateLock<T>(
  configDir: string,
  change: (current: LockFileContents) => { lock: ToolLock; result: T } | { result: T },
): Promise<T> {
  const file = configFiles(configDir).lock;
  const guard = `${file}.lck`;
  await mkdir(dirname(file), { recursive: true }).catch(() => undefined);
  const deadline = Date.now() + LOCK_WAIT_MS;
  let delay = 5;
  for (;;) {
    try {
      const handle = await open(guard, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`).finally(() => handle.close());
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new IoError(guard, `cannot create ${guard}: ${describeError(error)}`, {
          cause: error,
        });
      }
      const age = await stat(guard).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) {
        await rm(guard, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new IoError(
          guard,
          `another codex-mmo process has been updating ${file} for over ${LOCK_WAIT_MS / 1000} s (${guard} exists); if none is running, remove ${guard}`,
        );
      }
      await sleep(delay + Math.floor(Math.random() * delay));
      delay = Math.min(delay * 2, 200);
    }
  }
  try {
    const outcome = change(await readLockFile(configDir));
    if ('lock' in outcome) await writeLock(configDir, outcome.lock);
    return outcome.result;
  } finally {
    await rm(guard, { force: true }).catch(() => undefined);
  }
}
