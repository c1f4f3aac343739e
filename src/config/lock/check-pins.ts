/**
 * The offline pin checks of `validate`, `doctor` and session start: every given registry entry
 * against its pin in the lock file as read (`pin-check.ts`), with the stdio command resolved on
 * the launch environment's PATH the way the pin recorded it. Starts no server.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { Environment } from '../../foundation/paths/directories.js';
import type { Readiness } from '../registry/readiness.js';
import { resolveCommand } from '../registry/readiness.js';
import { ownValue } from '../registry/own-record.js';
import type { RegistryEntry } from '../registry/types.js';
import type { LockFileContents } from './lock-file.js';
import { checkAgainstPin, unversionedPackage } from './pin-check.js';

export interface PinCheckContext {
  readonly env: Environment;
  readonly home: string;
  /** Readiness already computed for some entries: their resolved commands are reused. */
  readonly readiness?: readonly Readiness[];
}

/** The executable a stdio entry's command resolves to (undefined for HTTP or unresolvable). */
export async function commandPathOf(
  entry: RegistryEntry,
  ctx: PinCheckContext,
): Promise<string | undefined> {
  const definition = entry.definition;
  if (definition.transport !== 'stdio') return undefined;
  const known = ctx.readiness?.find((r) => r.server === definition.id);
  if (known !== undefined) return known.command?.resolved;
  return resolveCommand(definition.command, ctx.env, ctx.home);
}

/** Offline findings for each entry against the lock (and unversioned packages), in entry order. */
export async function checkPins(
  entries: readonly RegistryEntry[],
  lock: LockFileContents,
  ctx: PinCheckContext,
): Promise<Diagnostic[]> {
  const found = await Promise.all(
    entries.map(async (entry) => {
      const out: Diagnostic[] = [];
      const unversioned = unversionedPackage(entry);
      if (unversioned !== undefined) out.push(unversioned);
      const pin = ownValue(lock.lock.servers, entry.definition.id);
      if (pin === undefined) return out;
      const path = await commandPathOf(entry, ctx);
      out.push(...checkAgainstPin(entry, pin, path, lock.file));
      return out;
    }),
  );
  return found.flat();
}
