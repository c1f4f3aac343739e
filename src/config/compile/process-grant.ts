/**
 * What one Codex process exposes of a server when each role's narrowing happens on the model wire
 * and at the gateway (pure): the union of the grants of every role running in it (its root and
 * its reachable native roles) — required when any of them requires it — and whether the wire can
 * narrow at all for the provider the base settings name.
 */
import { providerRoute } from './provider-route.js';
import type { ResolvedPlan, ResolvedProcess } from '../profile/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';

export interface ProcessGrant {
  readonly enabled_tools: readonly string[];
  readonly required: boolean;
}

/** The union of the grants on `server` of every role of `process`; undefined when none has one. */
export function processGrant(
  plan: ResolvedPlan,
  process: ResolvedProcess,
  server: string,
): ProcessGrant | undefined {
  const tools: string[] = [];
  let required = false;
  let granted = false;
  for (const role of process.roles) {
    const grant = plan.roles[role]?.grants[server];
    if (grant === undefined) continue;
    granted = true;
    required ||= grant.required;
    for (const tool of grant.enabled_tools) if (!tools.includes(tool)) tools.push(tool);
  }
  return granted ? { enabled_tools: tools, required } : undefined;
}

/** True when the model wire can front the provider of `base`, so it narrows every role. */
export function rolesNarrowedOnWire(base: TomlTable): boolean {
  return providerRoute(base).kind !== 'unfrontable';
}
