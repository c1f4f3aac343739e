/**
 * Builds the immutable snapshot of a profile (docs/design.md §5): the normalised profile with its
 * instruction text, the normalised definitions of the servers it grants (paths kept as written),
 * the operator's base Codex settings and the tool pins and leases of the granted servers. Pure.
 */

import { grantedServers } from '../profile/resolve-plan.js';
import type { ProfileData, RoleSpec } from '../profile/types.js';
import { REGISTRY_SCHEMA_VERSION, type ServerDefinition } from '../registry/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import { canonicalJson, sha256Hex } from './canonical-json.js';
import { SNAPSHOT_FORMAT, type ServerLease, type Snapshot, type ToolPin } from './types.js';
import { emptyRecord, ownValue } from '../registry/own-record.js';

/** Deep copy of plain data, dropping anything JSON cannot hold (class instances stay out). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The profile as pure data: only ProfileData fields (no pack directory, file or positions). */
export function normaliseProfile(profile: ProfileData): ProfileData {
  const agents: Record<string, RoleSpec> = {};
  for (const [name, role] of Object.entries(profile.agents)) agents[name] = plain(role);
  return {
    schema_version: profile.schema_version,
    name: profile.name,
    ...(profile.description !== undefined ? { description: profile.description } : {}),
    root: profile.root,
    agents,
    ...(profile.budget !== undefined ? { budget: plain(profile.budget) } : {}),
  };
}

/** IDs of every server granted to any role, sorted: another name for `grantedServers`. */
export const grantedServerIds: (profile: ProfileData) => string[] = grantedServers;

/**
 * Assembles a snapshot. Only servers the profile grants (and that exist in `servers`) are kept,
 * and only their pins; pins are ordered by tool name. Object keys come out in canonical order.
 */
export function buildSnapshot(
  profile: ProfileData,
  servers: ReadonlyMap<string, ServerDefinition>,
  base: TomlTable,
  pins: Readonly<Record<string, readonly ToolPin[]>>,
  leases: Readonly<Record<string, ServerLease>> = {},
): Snapshot {
  const kept = emptyRecord<ServerDefinition>();
  const keptPins = emptyRecord<ToolPin[]>();
  const keptLeases = emptyRecord<ServerLease>();
  for (const id of grantedServers(profile)) {
    const definition = servers.get(id);
    if (definition === undefined) continue;
    kept[id] = plain(definition);
    const serverPins = ownValue(pins, id);
    if (serverPins !== undefined) {
      keptPins[id] = serverPins
        .map((pin) => ({
          name: pin.name,
          digest: pin.digest,
          ...(pin.listed_digest !== undefined ? { listed_digest: pin.listed_digest } : {}),
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      // a lease only with the pin it was recorded with
      const lease = ownValue(leases, id);
      if (lease !== undefined) keptLeases[id] = plain(lease);
    }
  }
  const snapshot: Snapshot = {
    format: SNAPSHOT_FORMAT,
    schema_version: REGISTRY_SCHEMA_VERSION,
    profile: normaliseProfile(profile),
    servers: kept,
    base: plain(base),
    pins: keptPins,
    ...(Object.keys(keptLeases).length > 0 ? { leases: keptLeases } : {}),
  };
  // in canonical key order, so a fresh snapshot and one read back from the store are identical
  return JSON.parse(canonicalJson(snapshot)) as Snapshot;
}

/** The canonical text a snapshot is stored and hashed as. */
export function snapshotText(snapshot: Snapshot): string {
  return canonicalJson(snapshot);
}

/** `sha256:<hex>` of the snapshot's canonical JSON encoded as UTF-8. */
export function snapshotId(snapshot: Snapshot): string {
  return `sha256:${sha256Hex(snapshotText(snapshot))}`;
}
