/**
 * `tool-mcp add --replace`: takes the existing definition of an ID out of every fragment that
 * defines it, just before the new fragment is written, and puts every file back as it was when
 * the write or the pin fails. `planReplacement` reads and checks first; nothing changes there.
 */
import { readFile, rm, stat } from 'node:fs/promises';

import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { writeFileAtomic } from '../../foundation/paths/atomic-write.js';
import type { Registry } from '../../config/registry/types.js';
import { removeEntryText } from './remove-entry-text.js';

interface FileCut {
  readonly file: string;
  readonly original: string;
  readonly mode: number;
  /** The text without the server; undefined when no server is left (the file is deleted). */
  readonly remaining: string | undefined;
}

/** The files to change, or the diagnostics of why the existing definition cannot be replaced. */
export type ReplacementPlan =
  | { readonly ok: true; readonly cuts: readonly FileCut[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/**
 * Plans replacing `id` (defined in the registry) with a new fragment `file`: every fragment that
 * defines `id` must read and parse, and `file`, when it already exists, must hold `id` only.
 */
export async function planReplacement(
  registry: Registry,
  id: string,
  file: string,
): Promise<ReplacementPlan> {
  const status = registry.statuses.find((s) => s.id === id);
  const entry = registry.servers.get(id);
  const files = [...new Set([...(status ? [status.file] : []), ...(entry?.replaces ?? [])])];
  const cuts: FileCut[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const at of files) {
    const original = await readFile(at, 'utf8').catch(() => undefined);
    const mode = await stat(at).then(
      (info) => info.mode & 0o777,
      () => undefined,
    );
    const removed = original === undefined ? undefined : removeEntryText(original, id);
    if (original === undefined || mode === undefined || removed === undefined) {
      diagnostics.push(
        diagnostic({
          code: 'remove-fragment-unreadable',
          message: `cannot take server '${id}' out of ${at} to replace it: it does not read or parse as TOML; remove its [tool_mcp_servers.${id}] table by hand`,
          file: at,
          server: id,
        }),
      );
      continue;
    }
    cuts.push({ file: at, original, mode, remaining: removed.empty ? undefined : removed.text });
  }
  const own = cuts.find((cut) => cut.file === file);
  if (registry.files.includes(file) && (own === undefined || own.remaining !== undefined)) {
    diagnostics.push(
      diagnostic({
        code: 'add-server-exists',
        message: `${file} defines other servers too, so --replace cannot write server '${id}' there; move them to another fragment or remove that file`,
        file,
        server: id,
      }),
    );
  }
  return diagnostics.length > 0 ? { ok: false, diagnostics } : { ok: true, cuts };
}

/** Cuts the server out of every planned file; returns how to put every file back. */
export async function applyReplacement(cuts: readonly FileCut[]): Promise<() => Promise<void>> {
  const done: FileCut[] = [];
  const undo = async (): Promise<void> => {
    for (const cut of done) await writeFileAtomic(cut.file, cut.original, cut.mode);
  };
  try {
    for (const cut of cuts) {
      if (cut.remaining === undefined) await rm(cut.file, { force: true });
      else await writeFileAtomic(cut.file, cut.remaining, cut.mode);
      done.push(cut);
    }
  } catch (error) {
    await undo();
    throw error;
  }
  return undo;
}
