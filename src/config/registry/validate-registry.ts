/**
 * `tool-mcp validate` as a function: the registry's own diagnostics, the credential file's, and
 * the readiness of every valid entry (or of one server), combined into one verdict per server.
 * Launches nothing.
 */
import { basename } from 'node:path';

import { hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import type { LoadedCredentials } from './credentials.js';
import { registryDiagnostic } from './diagnostic-codes.js';
import { checkReadiness, type Readiness, type ReadinessContext } from './readiness.js';
import type { Registry, RegistryEntry, ServerStatus } from './types.js';

export interface RegistryValidation {
  /** No error in `diagnostics`. */
  readonly ok: boolean;
  readonly diagnostics: Diagnostic[];
  /** One per ID (or only the requested one), `ok` covering definition and readiness. */
  readonly servers: ServerStatus[];
  /** Readiness of every valid entry that was checked. */
  readonly readiness: Readiness[];
}

/** Byte-wise comparison of two paths' file names: the order fragments load in. */
function loadOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(basename(a), 'utf8'), Buffer.from(basename(b), 'utf8'));
}

/**
 * Which registry diagnostics concern `id`: its own; fragment-level ones (no server) of the files
 * that define it; those of fragments that yielded no server at all and load after its winning
 * file (a fragment that failed to load may have been meant to replace it); and those not about a
 * fragment file (such as an unreadable registry directory).
 */
export function diagnosticsAffecting(registry: Registry, id: string): Diagnostic[] {
  return diagnosticsAffectingEach(registry, [id]);
}

/**
 * `diagnosticsAffecting` for several servers at once: each diagnostic once, in the order of
 * `ids`. The registry-wide sets are built once, so this is linear in the registry size plus
 * `ids` × diagnostics, not `ids` × registry size.
 */
export function diagnosticsAffectingEach(registry: Registry, ids: readonly string[]): Diagnostic[] {
  const statusFile = new Map<string, string>();
  for (const s of registry.statuses) if (!statusFile.has(s.id)) statusFile.set(s.id, s.file);
  const productive = new Set<string>();
  for (const s of registry.statuses) productive.add(s.file);
  for (const e of registry.servers.values()) {
    productive.add(e.file);
    for (const f of e.replaces) productive.add(f);
  }
  const fragmentFiles = new Set(registry.files);
  const out = new Set<Diagnostic>();
  for (const id of ids) {
    const entry = registry.servers.get(id);
    const winning = entry?.file ?? statusFile.get(id);
    const ownFiles = new Set<string>();
    if (winning !== undefined) ownFiles.add(winning);
    for (const f of entry?.replaces ?? []) ownFiles.add(f);
    for (const d of registry.diagnostics) {
      if (out.has(d)) continue;
      const affects =
        d.server !== undefined
          ? d.server === id
          : d.file === undefined ||
            ownFiles.has(d.file) ||
            (!productive.has(d.file) &&
              (!(fragmentFiles.has(d.file) || d.file.endsWith('.toml')) ||
                winning === undefined ||
                loadOrder(d.file, winning) > 0));
      if (affects) out.add(d);
    }
  }
  return [...out];
}

/** A did-you-mean diagnostic for an ID the registry does not know. */
export function unknownServerDiagnostic(registry: Registry, id: string): Diagnostic {
  const near = suggest(
    id,
    registry.statuses.map((s) => s.id),
  );
  const known = registry.statuses.length;
  const hint =
    near !== undefined
      ? `did you mean '${near}'?`
      : known === 0
        ? 'the registry is empty; add a fragment under tool-mcp.d'
        : "run 'codex-mmo tool-mcp list' to see the registered servers";
  return registryDiagnostic('unknown-server', {
    message: `no Tool MCP server '${id}' in the registry; ${hint}`,
    server: id,
  });
}

/** A server ID looked up in the registry: its valid entry, or why there is none. */
export type ServerLookup =
  | { readonly entry: RegistryEntry }
  | {
      readonly entry?: undefined;
      /** Set when the ID is defined but its winning definition is invalid. */
      readonly status?: ServerStatus;
      /** `unknown-server` (with a did-you-mean), or the errors of the invalid definition. */
      readonly diagnostics: Diagnostic[];
    };

/**
 * Finds the valid entry of `id`. An unknown ID yields `unknown-server` plus the problems that may
 * explain it (an unreadable registry directory, a fragment that failed to load); an invalid
 * definition yields the diagnostics affecting it.
 */
export function lookupServer(registry: Registry, id: string): ServerLookup {
  const entry = registry.servers.get(id);
  if (entry !== undefined) return { entry };
  const status = registry.statuses.find((s) => s.id === id);
  if (status !== undefined) return { status, diagnostics: diagnosticsAffecting(registry, id) };
  return {
    diagnostics: [unknownServerDiagnostic(registry, id), ...diagnosticsAffecting(registry, id)],
  };
}

/**
 * A further check of the valid entries being validated (e.g. against the pins in tool-mcp.lock or
 * the known credential values), given their readiness; its errors fail the servers they name.
 */
export type ExtraCheck = (
  entries: readonly RegistryEntry[],
  readiness: readonly Readiness[],
) => Promise<Diagnostic[]>;

/**
 * Validates the registry and the readiness of its entries. With `onlyId`, reports only that
 * server (its own diagnostics plus the fragment-level ones affecting it); an unknown `onlyId`
 * yields an `unknown-server` error with a suggestion.
 */
export async function validateRegistry(
  registry: Registry,
  credentials: LoadedCredentials,
  ctx: Pick<ReadinessContext, 'env' | 'home'>,
  onlyId?: string,
  extraChecks: readonly ExtraCheck[] = [],
): Promise<RegistryValidation> {
  const readinessCtx: ReadinessContext = {
    env: ctx.env,
    home: ctx.home,
    credentials: credentials.source,
    commandCache: new Map(),
  };
  if (onlyId !== undefined) {
    const lookup = lookupServer(registry, onlyId);
    if (lookup.entry === undefined && lookup.status === undefined) {
      return { ok: false, diagnostics: lookup.diagnostics, servers: [], readiness: [] };
    }
  }
  const statuses =
    onlyId === undefined ? registry.statuses : registry.statuses.filter((s) => s.id === onlyId);
  const entries = [...registry.servers.values()].filter(
    (e) => onlyId === undefined || e.definition.id === onlyId,
  );
  const readiness = await Promise.all(entries.map((e) => checkReadiness(e, readinessCtx)));
  const readyById = new Map(readiness.map((r) => [r.server, r]));
  const extra = (await Promise.all(extraChecks.map((check) => check(entries, readiness)))).flat();
  const diagnostics = [
    ...(onlyId === undefined ? registry.diagnostics : diagnosticsAffecting(registry, onlyId)),
    ...credentials.diagnostics,
    ...readiness.flatMap((r) => r.diagnostics),
    ...extra,
  ];
  const failing = new Set(extra.filter((d) => d.severity === 'error').map((d) => d.server));
  const servers = statuses.map((s): ServerStatus => {
    const ready = readyById.get(s.id);
    return { ...s, ok: s.ok && (ready?.ok ?? false) && !failing.has(s.id) };
  });
  return { ok: !hasErrors(diagnostics), diagnostics, servers, readiness };
}
