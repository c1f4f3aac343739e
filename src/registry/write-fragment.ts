/**
 * Writes a new registry fragment atomically and without replacing anything: the text goes to a
 * hidden temporary file in `tool-mcp.d` (never loaded as a fragment), is flushed, then hard-linked
 * to its final name, which fails if that name exists. A reader sees no fragment or the whole one.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { IoError, describeError } from '../errors.js';

/** Outcome of `writeNewFragment`: written, or the name was already taken (nothing changed). */
export type WriteFragmentResult = { readonly kind: 'written' } | { readonly kind: 'exists' };

/** Writes `text` to `file` unless `file` exists. Throws IoError when the file system refuses. */
export async function writeNewFragment(file: string, text: string): Promise<WriteFragmentResult> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { kind: 'exists' };
      throw error;
    }
    return { kind: 'written' };
  } catch (error) {
    throw new IoError(file, `cannot write ${file}: ${describeError(error)}`, { cause: error });
  } finally {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}
