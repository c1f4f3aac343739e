/**
 * The registry's IO shell: finds the fragment files of `<configDir>/tool-mcp.d/`, reads each one
 * safely (regular files only, bounded size) and hands the bytes to the pure `buildRegistry`.
 * Every file-system problem becomes a diagnostic next to the validation diagnostics.
 */
import { buildRegistry } from './build-registry.js';
import { readFragmentFilesSync } from './read-fragment-files.js';
import type { Registry } from './types.js';

export {
  MAX_FRAGMENT_BYTES,
  compareBytewise,
  isFragmentName,
  readFragmentFiles,
  readFragmentFilesSync,
  type FragmentFiles,
} from './read-fragment-files.js';

/**
 * Loads the operator registry of `configDir`: reads `tool-mcp.d/*.toml` and validates and merges
 * them. A missing `tool-mcp.d` is an empty registry. Never throws for bad input.
 */
export function loadRegistry(configDir: string): Promise<Registry> {
  return Promise.resolve(loadRegistrySync(configDir));
}

/** Synchronous form of `loadRegistry`. */
export function loadRegistrySync(configDir: string): Registry {
  const { sources, diagnostics } = readFragmentFilesSync(configDir);
  const registry = buildRegistry(sources);
  if (diagnostics.length === 0) return registry;
  return { ...registry, diagnostics: [...diagnostics, ...registry.diagnostics] };
}
