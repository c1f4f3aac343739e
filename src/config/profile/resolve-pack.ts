/**
 * Resolves a loaded pack against the operator registry of a config directory (IO shell around the
 * pure `resolvePlan`): loads the registry, passes the valid definitions, and keeps only the
 * registry diagnostics that concern the servers the pack grants.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { loadRegistry } from '../registry/load-registry.js';
import type { Registry, ServerDefinition } from '../registry/types.js';
import { diagnosticsAffectingEach } from '../registry/validate-registry.js';
import type { LoadedPack } from './load-pack.js';
import { checkGrants, grantedServers, resolvePlan } from './resolve-plan.js';
import type { ProfilePack, ResolvedPlan } from './types.js';

export interface RegistryDiagnosticOptions {
  /** Add an info counting the registry's problems that do not affect these servers (default true). */
  readonly countOthers?: boolean;
}

/**
 * Registry diagnostics about the servers in `ids` (and the fragment problems that may hide one),
 * plus, unless `countOthers` is false, an info counting the registry's other problems.
 */
export function registryDiagnosticsFor(
  registry: Registry,
  ids: readonly string[],
  options: RegistryDiagnosticOptions = {},
): Diagnostic[] {
  const relevant = diagnosticsAffectingEach(registry, ids);
  if (options.countOthers === false) return relevant;
  const shown = new Set(relevant);
  const others = registry.diagnostics.filter((d) => d.severity !== 'info' && !shown.has(d));
  if (others.length > 0) {
    const n = others.length;
    relevant.push(
      diagnostic({
        severity: 'info',
        code: 'registry-other-problems',
        message: `the registry has ${n} other problem${n === 1 ? '' : 's'} not affecting this profile; run codex-mmo tool-mcp validate to see ${n === 1 ? 'it' : 'them'}`,
      }),
    );
  }
  return relevant;
}

/** The definitions of the registry's valid entries, and the IDs whose definition is invalid. */
export function registryInputs(registry: Registry): {
  definitions: Map<string, ServerDefinition>;
  invalidServers: Map<string, string>;
} {
  const definitions = new Map<string, ServerDefinition>();
  for (const [id, entry] of registry.servers) definitions.set(id, entry.definition);
  const invalidServers = new Map<string, string>();
  for (const status of registry.statuses) {
    if (!status.ok && !definitions.has(status.id)) invalidServers.set(status.id, status.file);
  }
  return { definitions, invalidServers };
}

/** Resolves `pack` against an already loaded registry. */
export function resolveAgainst(
  pack: ProfilePack,
  registry: Registry,
  options: RegistryDiagnosticOptions = {},
  pinnedTools?: ReadonlyMap<string, readonly string[]>,
): { plan: ResolvedPlan | undefined; diagnostics: Diagnostic[] } {
  const { definitions, invalidServers } = registryInputs(registry);
  const resolved = resolvePlan(
    pack,
    definitions,
    { file: pack.file, ...(pack.positions ? { positions: pack.positions } : {}) },
    { invalidServers, ...(pinnedTools !== undefined ? { pinnedTools } : {}) },
  );
  return {
    plan: resolved.plan,
    diagnostics: [
      ...registryDiagnosticsFor(registry, grantedServers(pack), options),
      ...resolved.diagnostics,
    ],
  };
}

/**
 * For a pack that failed validation: its own diagnostics plus its grants checked against the
 * registry, so that one run reports the pack's problems and its grant problems together. Where
 * both report the same problem at the same key (an empty `enabled_tools`), the registry's
 * diagnostic, which names the operator's list, replaces the pack's.
 */
export function withGrantProblems(
  loaded: LoadedPack,
  registry: Registry,
  options: RegistryDiagnosticOptions = {},
  pinnedTools?: ReadonlyMap<string, readonly string[]>,
): Diagnostic[] {
  const { partial, file } = loaded;
  if (partial === undefined || file === undefined) return [...loaded.diagnostics];
  const { definitions, invalidServers } = registryInputs(registry);
  const positions = loaded.positions;
  const grants = checkGrants(
    partial,
    definitions,
    { file, ...(positions ? { positions } : {}) },
    { invalidServers, ...(pinnedTools !== undefined ? { pinnedTools } : {}) },
  );
  const key = (d: Diagnostic): string => `${d.code} ${d.file ?? ''} ${d.path ?? ''}`;
  const superseded = new Set(grants.map(key));
  return [
    ...loaded.diagnostics.filter((d) => !superseded.has(key(d))),
    ...registryDiagnosticsFor(registry, grantedServers(partial), options),
    ...grants,
  ];
}

/** Loads the registry of `configDir` and resolves `pack` against it. */
export async function resolvePack(
  pack: ProfilePack,
  configDir: string,
): Promise<{ plan: ResolvedPlan | undefined; registry: Registry; diagnostics: Diagnostic[] }> {
  const registry = await loadRegistry(configDir);
  return { ...resolveAgainst(pack, registry), registry };
}
