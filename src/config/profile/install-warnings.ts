/**
 * Checks a pack being installed against the operator registry with the resolver `profile show`
 * and `profile doctor` use. Installing does not depend on the registry, so each grant that would
 * not resolve (an unknown server, a tool outside the operator's enabled_tools) becomes a
 * `grant-unresolved` warning at the grant's position instead of an error.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { loadRegistry } from '../registry/load-registry.js';
import { loadPack } from './load-pack.js';
import { resolveAgainst } from './resolve-pack.js';

/** `grant-unresolved` warnings for the pack in `packDir` against the registry of `configDir`. */
export async function unresolvedGrantWarnings(
  packDir: string,
  configDir: string,
): Promise<Diagnostic[]> {
  const { pack } = await loadPack(packDir);
  if (pack === undefined) return [];
  const registry = await loadRegistry(configDir);
  const { diagnostics } = resolveAgainst(pack, registry, { countOthers: false });
  return diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) =>
      diagnostic({
        ...d,
        severity: 'warning',
        code: 'grant-unresolved',
        message: `${d.message} [${d.code}]; the pack is installed, but sessions of it fail until the grant or the operator registry (${configDir}) is fixed`,
      }),
    );
}
