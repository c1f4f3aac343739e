/**
 * Builds the operator registry from fragment sources (pure): orders the fragments byte-wise by
 * file name, validates each, and merges them (`mergeFragmentResults`: a later definition of an ID
 * replaces the whole earlier one; an invalid winning definition leaves the ID out, fail closed).
 */
import { compareFragmentFiles, mergeFragmentResults } from './merge-fragments.js';
import type { FragmentSource, Registry } from './types.js';
import { validateFragment } from './validate-fragment.js';

export { compareFragmentFiles };

/** Validates and merges fragments into a registry. Never throws for bad input. */
export function buildRegistry(sources: readonly FragmentSource[]): Registry {
  const ordered = [...sources].sort((a, b) => compareFragmentFiles(a.file, b.file));
  return mergeFragmentResults(ordered.map((source) => validateFragment(source)));
}
