/**
 * Writing a file so that a reader sees no file, the old text or the whole new one: the text goes
 * to a hidden temporary file beside it (flushed unless told otherwise), which is then renamed
 * over the file (`writeFileAtomic`, or `writeFileAtomicSync` unflushed for caches) or
 * hard-linked to a name that must not exist yet (`writeNewFileAtomic`). Used for the lock,
 * fragments, session records and cache entries.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { link, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { IoError, describeError } from '../errors.js';

export interface AtomicWriteOptions {
  /** Flush the text to disk before it takes the file's name (default true). */
  readonly durable?: boolean;
}

/** Outcome of `writeNewFileAtomic`: written, or the name was already taken (nothing changed). */
export type WriteNewFileResult = { readonly kind: 'written' } | { readonly kind: 'exists' };

/** Writes `text` to `file` (temp file + fsync + rename) with `mode`. Throws IoError on failure. */
export async function writeFileAtomic(
  file: string,
  text: string,
  mode: number,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = tempBeside(file);
  try {
    await writeTemp(temp, text, mode, options);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw cannotWrite(file, error);
  }
}

/**
 * Writes `text` to `file` (temp file + rename, not flushed) with `mode`, synchronously: for cache
 * entries that may be lost but never seen half-written. Throws IoError on failure.
 */
export function writeFileAtomicSync(file: string, text: string, mode: number): void {
  const temp = tempBeside(file);
  try {
    writeFileSync(temp, text, { mode, flag: 'wx' });
    renameSync(temp, file);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // the temporary file was never made (its directory cannot hold one)
    }
    throw cannotWrite(file, error);
  }
}

/** Writes `text` to `file` with `mode` unless `file` exists. Throws IoError on failure. */
export async function writeNewFileAtomic(
  file: string,
  text: string,
  mode: number,
  options: AtomicWriteOptions = {},
): Promise<WriteNewFileResult> {
  const temp = tempBeside(file);
  try {
    await writeTemp(temp, text, mode, options);
    try {
      await link(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { kind: 'exists' };
      throw error;
    }
    return { kind: 'written' };
  } catch (error) {
    throw cannotWrite(file, error);
  } finally {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

/** Creates `path` (which must not exist) holding `text`, flushed to disk. */
export async function writeSyncedFile(path: string, text: string, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function tempBeside(file: string): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
}

async function writeTemp(
  temp: string,
  text: string,
  mode: number,
  options: AtomicWriteOptions,
): Promise<void> {
  await mkdir(dirname(temp), { recursive: true });
  if (options.durable === false) {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    return;
  }
  await writeSyncedFile(temp, text, mode);
}

function cannotWrite(file: string, error: unknown): IoError {
  return new IoError(file, `cannot write ${file}: ${describeError(error)}`, { cause: error });
}
