/**
 * Writes a new registry fragment atomically and without replacing anything: the text goes to a
 * hidden temporary file in `tool-mcp.d` (never loaded as a fragment), is flushed, then hard-linked
 * to its final name, which fails if that name exists. A reader sees no fragment or the whole one.
 */
import {
  writeNewFileAtomic,
  type WriteNewFileResult,
} from '../../foundation/paths/atomic-write.js';

/** Outcome of `writeNewFragment`: written, or the name was already taken (nothing changed). */
export type WriteFragmentResult = WriteNewFileResult;

/** Writes `text` to `file` unless `file` exists. Throws IoError when the file system refuses. */
export function writeNewFragment(file: string, text: string): Promise<WriteFragmentResult> {
  return writeNewFileAtomic(file, text, 0o644);
}
