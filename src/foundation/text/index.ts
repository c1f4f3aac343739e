/**
 * Plain-text tables for the CLI and the reports, and text made safe to print for a person.
 */
export { formatTable } from './text-table.js';
export { terminalSafe } from './terminal-safe.js';
