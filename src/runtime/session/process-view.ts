/**
 * The host view of one Codex process of a session (docs/design.md §9): what its `bwrap` keeps
 * in sight inside the private `/tmp` — its working directory, its own home and Codex's own files —
 * the `$TMPDIR` it makes there, and the operator's runtime directory it hides.
 */
import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';

import {
  hostViewLaunch,
  type HostView,
  type HostViewLaunch,
} from '../../foundation/process/host-view.js';

export interface ProcessViewFacts {
  readonly cwd: string;
  /** The process's own Codex home. */
  readonly home: string;
  readonly codexBin: string;
  /** The process's `$TMPDIR` and `$XDG_RUNTIME_DIR`, where set. */
  readonly tmpDir?: string | undefined;
  readonly runtimeDir?: string | undefined;
}

const real = (path: string): Promise<string> => realpath(path).catch(() => path);

/** The launch of one process inside the session's host view; undefined without one. */
export async function processView(
  view: HostView | undefined,
  facts: ProcessViewFacts,
): Promise<HostViewLaunch | undefined> {
  if (view?.available !== true) return undefined;
  // Codex's native binary and what it ships beside it (`vendor/<triple>/{bin,codex-resources}`)
  const codexFiles = dirname(dirname(await real(facts.codexBin)));
  const keep = await Promise.all([facts.cwd, facts.home].map(real));
  const tmp = facts.tmpDir !== undefined && facts.tmpDir !== '' ? [facts.tmpDir] : [];
  const runtime =
    facts.runtimeDir !== undefined && facts.runtimeDir.startsWith('/') ? [facts.runtimeDir] : [];
  return hostViewLaunch(view, { keep: [...keep, codexFiles], make: tmp, hide: runtime });
}
