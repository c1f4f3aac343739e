/**
 * Resolves a loaded pack against the operator registry of a config directory (IO shell around the
 * pure `resolvePlan`): loads the registry, passes the valid definitions, and keeps only the
 * registry diagnostics that concern the servers the pack grants.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadRegistry } from '../registry/load-registry.js';
import type { Registry, ServerDefinition } from '../registry/types.js';
import { diagnosticsAffecting } from '../registry/validate-registry.js';
import { resolvePlan } from './resolve-plan.js';
import type { ProfileData, ProfilePack, ResolvedPlan } from './types.js';

/** Server IDs granted anywhere in the profile, sorted. */
export function grantedServers(profile: ProfileData): string[] {
  const ids = new Set<string>();
  for (const role of Object.values(profile.agents)) {
    for (const server of Object.keys(role.grants)) ids.add(server);
  }
  return [...ids].sort();
}

function sameDiagnostic(a: Diagnostic, b: Diagnostic): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Registry diagnostics about the servers in `ids` (and the fragment problems that may hide one),
 * plus an info counting the registry's other problems.
 */
export function registryDiagnosticsFor(registry: Registry, ids: readonly string[]): Diagnostic[] {
  const relevant: Diagnostic[] = [];
  for (const d of ids.flatMap((id) => diagnosticsAffecting(registry, id))) {
    if (!relevant.some((r) => sameDiagnostic(r, d))) relevant.push(d);
  }
  const others = registry.diagnostics.filter(
    (d) => d.severity !== 'info' && !relevant.some((r) => sameDiagnostic(r, d)),
  );
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
): { plan: ResolvedPlan | undefined; diagnostics: Diagnostic[] } {
  const { definitions, invalidServers } = registryInputs(registry);
  const resolved = resolvePlan(
    pack,
    definitions,
    { file: pack.file, ...(pack.positions ? { positions: pack.positions } : {}) },
    { invalidServers },
  );
  return {
    plan: resolved.plan,
    diagnostics: [
      ...registryDiagnosticsFor(registry, grantedServers(pack)),
      ...resolved.diagnostics,
    ],
  };
}

/** Loads the registry of `configDir` and resolves `pack` against it. */
export async function resolvePack(
  pack: ProfilePack,
  configDir: string,
): Promise<{ plan: ResolvedPlan | undefined; registry: Registry; diagnostics: Diagnostic[] }> {
  const registry = await loadRegistry(configDir);
  return { ...resolveAgainst(pack, registry), registry };
}
