/**
 * Loads the operator registry as `loadRegistry` does, taking each fragment's validation result
 * from a `FragmentCache` when its bytes are unchanged. The TOML parser and the validators are
 * loaded only when some fragment is not in the cache; the result is the same either way.
 */
import { writeCachedFragment, readCachedFragment, type FragmentCache } from './fragment-cache.js';
import { compareFragmentFiles, mergeFragmentResults } from './merge-fragments.js';
import { readFragmentFilesSync } from './read-fragment-files.js';
import type { Registry } from './types.js';
import type { FragmentResult, validateFragment } from './validate-fragment.js';

/**
 * `loadRegistry(configDir)` through `cache` (none: every fragment is validated). Never throws for
 * bad input or a bad cache.
 */
export async function loadRegistryCached(
  configDir: string,
  cache: FragmentCache | undefined,
): Promise<Registry> {
  const { sources, diagnostics } = readFragmentFilesSync(configDir);
  const ordered = [...sources].sort((a, b) => compareFragmentFiles(a.file, b.file));
  let validate: typeof validateFragment | undefined;
  const results: FragmentResult[] = [];
  for (const source of ordered) {
    let result = cache !== undefined ? readCachedFragment(cache, source) : undefined;
    if (result === undefined) {
      validate ??= (await import('./validate-fragment.js')).validateFragment;
      result = validate(source);
      if (cache !== undefined) writeCachedFragment(cache, source, result);
    }
    results.push(result);
  }
  const registry = mergeFragmentResults(results);
  if (diagnostics.length === 0) return registry;
  return { ...registry, diagnostics: [...diagnostics, ...registry.diagnostics] };
}
