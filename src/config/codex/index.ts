/**
 * The Codex versions codex-mmo supports, as the CLI names them.
 */
export { supportedSeriesText } from './codex-versions.js';
