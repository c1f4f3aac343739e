/**
 * `tool-mcp validate` as a function: the registry's own diagnostics, the credential file's, and
 * the readiness of every valid entry (or of one server), combined into one verdict per server.
 * Launches nothing.
 */
import { basename } from 'node:path';

import { diagnostic, hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import { suggest } from '../diagnostics/did-you-mean.js';
import type { LoadedCredentials } from './credentials.js';
import { checkReadiness, type Readiness, type ReadinessContext } from './readiness.js';
import type { Registry, ServerStatus } from './types.js';

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
  const entry = registry.servers.get(id);
  const status = registry.statuses.find((s) => s.id === id);
  const winning = entry?.file ?? status?.file;
  const ownFiles = new Set<string>();
  if (winning !== undefined) ownFiles.add(winning);
  for (const f of entry?.replaces ?? []) ownFiles.add(f);
  const productive = new Set<string>();
  for (const s of registry.statuses) productive.add(s.file);
  for (const e of registry.servers.values()) {
    productive.add(e.file);
    for (const f of e.replaces) productive.add(f);
  }
  const fragmentFiles = new Set(registry.files);
  return registry.diagnostics.filter((d) => {
    if (d.server !== undefined) return d.server === id;
    if (d.file === undefined) return true;
    if (ownFiles.has(d.file)) return true;
    if (productive.has(d.file)) return false;
    const isFragment = fragmentFiles.has(d.file) || d.file.endsWith('.toml');
    if (!isFragment) return true;
    return winning === undefined || loadOrder(d.file, winning) > 0;
  });
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
  return diagnostic({
    code: 'unknown-server',
    message: `no Tool MCP server '${id}' in the registry; ${hint}`,
    server: id,
  });
}

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
): Promise<RegistryValidation> {
  const readinessCtx: ReadinessContext = {
    env: ctx.env,
    home: ctx.home,
    credentials: credentials.source,
  };
  if (onlyId !== undefined && !registry.statuses.some((s) => s.id === onlyId)) {
    const diagnostics = [
      unknownServerDiagnostic(registry, onlyId),
      ...diagnosticsAffecting(registry, onlyId),
    ];
    return { ok: false, diagnostics, servers: [], readiness: [] };
  }
  const statuses =
    onlyId === undefined ? registry.statuses : registry.statuses.filter((s) => s.id === onlyId);
  const entries = [...registry.servers.values()].filter(
    (e) => onlyId === undefined || e.definition.id === onlyId,
  );
  const readiness = await Promise.all(entries.map((e) => checkReadiness(e, readinessCtx)));
  const readyById = new Map(readiness.map((r) => [r.server, r]));
  const diagnostics = [
    ...(onlyId === undefined ? registry.diagnostics : diagnosticsAffecting(registry, onlyId)),
    ...credentials.diagnostics,
    ...readiness.flatMap((r) => r.diagnostics),
  ];
  const servers = statuses.map((s): ServerStatus => {
    const ready = readyById.get(s.id);
    return { ...s, ok: s.ok && (ready?.ok ?? false) };
  });
  return { ok: !hasErrors(diagnostics), diagnostics, servers, readiness };
}
