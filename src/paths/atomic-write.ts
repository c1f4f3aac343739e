/**
 * Replacing a file atomically: the text goes to a hidden temporary file beside it, is flushed,
 * then renamed over the file, so a reader sees the old text or the whole new one. Used for the
 * lock file and for fragments the CLI edits.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { IoError, describeError } from '../errors.js';

/** Writes `text` to `file` (temp file + fsync + rename) with `mode`. Throws IoError on failure. */
export async function writeFileAtomic(file: string, text: string, mode: number): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(dirname(file), { recursive: true });
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw new IoError(file, `cannot write ${file}: ${describeError(error)}`, { cause: error });
  }
}
