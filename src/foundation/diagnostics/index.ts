/**
 * Diagnostics as data: building, sorting, formatting and summarizing them, near-miss suggestions
 * and masking of secret values.
 */
export {
  diagnostic,
  type Diagnostic,
  formatDiagnostic,
  hasErrors,
  type Severity,
  sortDiagnostics,
  summarize,
} from './diagnostic.js';
export { suggest } from './did-you-mean.js';
export { maskDeep, maskSecrets } from './mask-secrets.js';
