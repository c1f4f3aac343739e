/**
 * `removeServer`: takes a server out of the operator registry — its table out of every fragment
 * that defines it (a fragment left without servers is deleted), its pin out of tool-mcp.lock —
 * and says which installed packs still grant it (their grants stop resolving). Starts nothing.
 */
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { IoError, describeError } from '../../foundation/errors.js';
import { writeFileAtomic } from '../../foundation/paths/atomic-write.js';
import { updateLock } from '../../config/lock/lock-file.js';
import { emptyRecord } from '../../config/registry/own-record.js';
import { loadPack } from '../../config/profile/load-pack.js';
import { installedNames, profilesDir } from '../../config/profile/pack-store.js';
import { loadRegistry } from '../../config/registry/load-registry.js';
import { unknownServerDiagnostic } from '../../config/registry/validate-registry.js';
import type { ServerPin } from '../../config/lock/lock-format.js';
import { removeEntryText } from './remove-entry-text.js';

export interface FragmentChange {
  readonly file: string;
  /** `deleted`: no server was left in it; `edited`: the entry was cut out; `rewritten`: re-rendered. */
  readonly action: 'deleted' | 'edited' | 'rewritten';
}

export interface RemoveResult {
  readonly ok: boolean;
  readonly id: string;
  readonly fragments: readonly FragmentChange[];
  /** Whether a pin was removed from tool-mcp.lock. */
  readonly unpinned: boolean;
  /** Installed packs that still grant the server, with the granting roles. */
  readonly grantedBy: readonly { readonly pack: string; readonly roles: readonly string[] }[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Replaces `file` with `text` atomically, keeping its mode. */
async function replaceFile(file: string, text: string): Promise<void> {
  const mode = await stat(file).then(
    (info) => info.mode & 0o777,
    (error: unknown) => {
      throw new IoError(file, `cannot write ${file}: ${describeError(error)}`, { cause: error });
    },
  );
  await writeFileAtomic(file, text, mode);
}

async function packsGranting(
  dataDir: string,
  id: string,
): Promise<{ pack: string; roles: string[] }[]> {
  const out: { pack: string; roles: string[] }[] = [];
  for (const name of await installedNames(dataDir)) {
    const loaded = await loadPack(join(profilesDir(dataDir), name));
    const data = loaded.pack ?? loaded.partial;
    if (data === undefined) continue;
    const roles = Object.values(data.agents)
      .filter((role) => Object.hasOwn(role.grants, id))
      .map((role) => role.name);
    if (roles.length > 0) out.push({ pack: name, roles });
  }
  return out;
}

export async function removeServer(
  id: string,
  dirs: { readonly configDir: string; readonly dataDir: string },
): Promise<RemoveResult> {
  const registry = await loadRegistry(dirs.configDir);
  const status = registry.statuses.find((s) => s.id === id);
  const none = { id, fragments: [], unpinned: false, grantedBy: [] };
  if (status === undefined) {
    return { ok: false, ...none, diagnostics: [unknownServerDiagnostic(registry, id)] };
  }
  const entry = registry.servers.get(id);
  const files = [...new Set([status.file, ...(entry?.replaces ?? [])])];
  const fragments: FragmentChange[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    const removed = text === undefined ? undefined : removeEntryText(text, id);
    if (removed === undefined) {
      diagnostics.push(
        diagnostic({
          code: 'remove-fragment-unreadable',
          message: `cannot take server '${id}' out of ${file}: it does not read or parse as TOML; remove its [tool_mcp_servers.${id}] table by hand`,
          file,
          server: id,
        }),
      );
      continue;
    }
    if (removed.empty) {
      await rm(file, { force: true });
      fragments.push({ file, action: 'deleted' });
    } else {
      await replaceFile(file, removed.text);
      fragments.push({ file, action: removed.rewritten ? 'rewritten' : 'edited' });
    }
  }
  const unpinned = await updateLock(dirs.configDir, (latest) => {
    if (!latest.usable || !Object.hasOwn(latest.lock.servers, id)) return { result: false };
    const servers = emptyRecord<ServerPin>();
    for (const [key, pin] of Object.entries(latest.lock.servers))
      if (key !== id) servers[key] = pin;
    return { lock: { servers }, result: true };
  });
  const grantedBy = await packsGranting(dirs.dataDir, id);
  return { ok: diagnostics.length === 0, id, fragments, unpinned, grantedBy, diagnostics };
}
