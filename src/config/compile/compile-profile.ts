/**
 * Compiles a profile into a stored snapshot: locates and loads the pack, loads the operator
 * registry, `codex-base.toml` and the tool pins, resolves the grants, then builds and stores the
 * snapshot. The IO shell around the pure build; used by `snapshot compile`, `run` and `exec`.
 * `run` and `exec` reuse an earlier result when nothing read here changed (session/compile-memo.ts
 * fingerprints these inputs: a new input must be fingerprinted there too).
 */
import { hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { Directories, Environment } from '../../foundation/paths/directories.js';
import { readLock } from '../lock/lock-file.js';
import { loadPack } from '../profile/load-pack.js';
import { locatePack, packNotFound } from '../profile/pack-store.js';
import { registryInputs, resolveAgainst, withGrantProblems } from '../profile/resolve-pack.js';
import type { ResolvedPlan } from '../profile/types.js';
import { loadRegistry } from '../registry/load-registry.js';
import { buildSnapshot } from '../snapshot/build-snapshot.js';
import { storeSnapshot } from '../snapshot/snapshot-store.js';
import type { StoredSnapshot } from '../snapshot/types.js';
import { loadCodexBase } from './codex-base.js';
import { grantedServers } from '../profile/resolve-plan.js';
import { trustChecks } from './trust-checks.js';

export interface CompileRequest {
  /** An installed pack name or a path to a pack directory. */
  readonly nameOrPath: string;
  readonly dirs: Directories;
  /** Directory a relative pack path is resolved against. */
  readonly cwd: string;
  /** The launch environment: with `home`, the inputs are checked for credential values and pins. */
  readonly env?: Environment;
  /** Home directory for `~/` paths of the pin checks. */
  readonly home?: string;
}

export interface CompileResult {
  /** The stored snapshot; absent when there were errors. */
  readonly stored?: StoredSnapshot;
  /** True when this call wrote the snapshot, false when it already existed (or on errors). */
  readonly created: boolean;
  readonly plan?: ResolvedPlan;
  /** Every problem found in the pack, the registry entries it grants, codex-base.toml and the lock. */
  readonly diagnostics: Diagnostic[];
}

/** Locates, loads, resolves and stores. Never throws for bad input; IO failures throw. */
export async function compileProfile(request: CompileRequest): Promise<CompileResult> {
  const { dirs } = request;
  const packDir = await locatePack(request.nameOrPath, dirs.dataDir, request.cwd);
  if (packDir === undefined) {
    return {
      created: false,
      diagnostics: [await packNotFound(request.nameOrPath, dirs.dataDir, request.cwd)],
    };
  }
  const [loaded, registry, base, lock] = await Promise.all([
    loadPack(packDir),
    loadRegistry(dirs.configDir),
    loadCodexBase(dirs.configDir),
    readLock(dirs.configDir),
  ]);
  const diagnostics: Diagnostic[] = [...loaded.diagnostics];
  const pack = loaded.pack;
  // compile reports only what concerns this profile: no count of unrelated registry problems
  const scope = { countOthers: false };
  if (pack === undefined) {
    return {
      created: false,
      diagnostics: [...withGrantProblems(loaded, registry, scope), ...base.diagnostics],
    };
  }

  const resolved = resolveAgainst(pack, registry, scope);
  diagnostics.push(...resolved.diagnostics, ...base.diagnostics, ...lock.diagnostics);
  if (resolved.plan === undefined || hasErrors(diagnostics)) {
    return { created: false, diagnostics };
  }

  if (request.env !== undefined && request.home !== undefined) {
    // a credential value or a changed definition never reaches a stored snapshot
    const found = await trustChecks({
      profile: pack,
      packFile: pack.file,
      ...(pack.positions !== undefined ? { packPositions: pack.positions } : {}),
      base: base.base,
      baseFile: base.file,
      entries: grantedServers(pack).flatMap((id) => registry.servers.get(id) ?? []),
      configDir: dirs.configDir,
      env: request.env,
      home: request.home,
    });
    diagnostics.push(...found);
    if (hasErrors(found)) return { created: false, diagnostics };
  }
  const { definitions } = registryInputs(registry);
  const snapshot = buildSnapshot(pack, definitions, base.base, lock.pins, lock.leases);
  const { stored, created } = await storeSnapshot(dirs.dataDir, snapshot);
  return { stored, created, plan: resolved.plan, diagnostics };
}
