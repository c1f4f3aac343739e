/**
 * `checkServers`: the live health of every server of the registry, as `tool-mcp list --check`
 * shows it. Each valid entry is probed exactly as `tool-mcp probe` does (bounded concurrency, a
 * per-server timeout), after a readiness check that names missing variables without starting it.
 */
import { hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { checkReadiness } from '../../config/registry/readiness.js';
import { ownValue } from '../../config/registry/own-record.js';
import type { Registry, RegistryEntry, Transport } from '../../config/registry/types.js';
import { probeServer, type ProbeContext } from '../../runtime/probe/probe-server.js';

/** How many servers are probed at once by default. */
export const CHECK_CONCURRENCY = 4;

/** Codes that say a started server's surface or definition differs from its pin. */
const DRIFT_CODES = new Set([
  'tool-drift',
  'server-drift',
  'definition-drift',
  'server-identity-changed',
]);

export type CheckStatus = 'ok' | 'failed' | 'missing-variable' | 'invalid';
export type PinState = 'match' | 'drift' | 'not-pinned' | 'unchecked';

export interface ServerCheck {
  readonly id: string;
  readonly transport?: Transport;
  readonly status: CheckStatus;
  /** Why it failed, in a few words (`command not found`, `timeout`, …). */
  readonly reason?: string;
  /** The variables it needs that are not set (`missing-variable`). */
  readonly missing: readonly string[];
  /** Tools the server offered (undefined when it did not answer tools/list). */
  readonly tools?: number;
  readonly enabledTools: number;
  readonly pin: PinState;
  /** Whether `tool-mcp probe ID` would exit 0. */
  readonly ok: boolean;
  readonly timeToReadyMs?: number;
  readonly diagnostics: readonly Diagnostic[];
}

export interface CheckOptions {
  /** Upper bound of each server's startup_timeout_sec during the check. */
  readonly timeoutSec?: number;
  readonly concurrency?: number;
}

/** A short reason from the first error: its code without the `probe-` prefix, in words. */
function reasonOf(diagnostics: readonly Diagnostic[]): string {
  const error = diagnostics.find((d) => d.severity === 'error');
  return (error?.code ?? 'probe-start-failed').replace(/^probe-/, '').replaceAll('-', ' ');
}

/** Runs `work` over `items` with at most `limit` at a time, keeping their order. */
async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Probes one entry, or reports the variables it lacks without starting it. */
async function checkOne(
  entry: RegistryEntry,
  ctx: ProbeContext,
  options: CheckOptions,
): Promise<ServerCheck> {
  const definition = entry.definition;
  const pinned = ownValue(ctx.lock.lock.servers, definition.id) !== undefined;
  const base = {
    id: definition.id,
    transport: definition.transport,
    enabledTools: definition.enabled_tools.length,
  };
  const readiness = await checkReadiness(entry, ctx);
  const missing = readiness.variables.filter((v) => !v.present).map((v) => v.name);
  if (missing.length > 0) {
    return {
      ...base,
      status: 'missing-variable',
      missing,
      pin: pinned ? 'unchecked' : 'not-pinned',
      ok: false,
      diagnostics: readiness.diagnostics,
    };
  }
  const own = definition.startup_timeout_sec;
  const limit = options.timeoutSec;
  const bounded: RegistryEntry =
    limit === undefined || (own !== undefined && own <= limit)
      ? entry
      : { ...entry, definition: { ...definition, startup_timeout_sec: limit } };
  const result = await probeServer(bounded, ctx);
  const answered = result.launched && result.surface !== undefined;
  const drift =
    result.drift.length > 0 ||
    result.serverDrift.length > 0 ||
    result.diagnostics.some((d) => DRIFT_CODES.has(d.code));
  return {
    ...base,
    status: answered ? 'ok' : 'failed',
    ...(answered ? {} : { reason: reasonOf(result.diagnostics) }),
    missing: [],
    ...(answered ? { tools: result.tools.length } : {}),
    pin: !pinned ? 'not-pinned' : drift ? 'drift' : answered ? 'match' : 'unchecked',
    ok: result.ok && !hasErrors(result.diagnostics),
    ...(result.timeToReadyMs !== undefined ? { timeToReadyMs: result.timeToReadyMs } : {}),
    diagnostics: result.diagnostics,
  };
}

/**
 * Checks every server of `registry`: invalid definitions are reported as such, valid ones are
 * probed with the launch context `contextOf` gives each (credentials, lock), in ID order.
 */
export async function checkServers(
  registry: Registry,
  contextOf: (entry: RegistryEntry) => ProbeContext,
  options: CheckOptions = {},
): Promise<ServerCheck[]> {
  const items = registry.statuses.map((status) => ({
    status,
    entry: status.ok ? registry.servers.get(status.id) : undefined,
  }));
  return mapBounded(items, options.concurrency ?? CHECK_CONCURRENCY, async ({ status, entry }) =>
    entry === undefined
      ? {
          id: status.id,
          ...(status.transport !== undefined ? { transport: status.transport } : {}),
          status: 'invalid',
          reason: 'invalid definition',
          missing: [],
          enabledTools: 0,
          pin: 'unchecked',
          ok: false,
          diagnostics: registry.diagnostics.filter((d) => d.server === status.id),
        }
      : checkOne(entry, contextOf(entry), options),
  );
}
