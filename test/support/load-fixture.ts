/**
 * Loads a compile fixture (a config dir with tool-mcp.d/ and codex-base.toml, and a pack dir)
 * through the real loaders and resolver, and builds its snapshot and plan.
 */
import { join, resolve } from 'node:path';

import { TEST_CODEX_BIN } from './codex-bin.js';
import { loadCodexBase } from '../../src/config/compile/codex-base.js';
import { hasErrors, formatDiagnostic } from '../../src/foundation/diagnostics/diagnostic.js';
import { loadPack } from '../../src/config/profile/load-pack.js';
import { resolvePlan } from '../../src/config/profile/resolve-plan.js';
import type { ResolvedPlan } from '../../src/config/profile/types.js';
import { loadRegistry } from '../../src/config/registry/load-registry.js';
import type { ServerDefinition } from '../../src/config/registry/types.js';
import { buildSnapshot } from '../../src/config/snapshot/build-snapshot.js';
import type { Snapshot } from '../../src/config/snapshot/types.js';

export const REPO = resolve(import.meta.dirname, '../..');
export const CODEX_BIN = TEST_CODEX_BIN;
export const FIXTURES = join(REPO, 'test/fixtures/compile');

export interface LoadedFixture {
  readonly snapshot: Snapshot;
  readonly plan: ResolvedPlan;
  readonly definitions: ReadonlyMap<string, ServerDefinition>;
}

export async function loadFixture(configDir: string, packDir: string): Promise<LoadedFixture> {
  const loaded = await loadPack(packDir);
  const registry = await loadRegistry(configDir);
  const base = await loadCodexBase(configDir);
  const problems = [...loaded.diagnostics, ...registry.diagnostics, ...base.diagnostics];
  if (loaded.pack === undefined || hasErrors(problems)) {
    throw new Error(`fixture does not load:\n${problems.map(formatDiagnostic).join('\n')}`);
  }
  const definitions = new Map([...registry.servers].map(([id, e]) => [id, e.definition]));
  const { plan, diagnostics } = resolvePlan(loaded.pack, definitions);
  if (plan === undefined) {
    throw new Error(`fixture does not resolve:\n${diagnostics.map(formatDiagnostic).join('\n')}`);
  }
  return { snapshot: buildSnapshot(loaded.pack, definitions, base.base, {}), plan, definitions };
}
