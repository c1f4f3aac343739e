/**
 * Plain-text tables for the CLI and the reports.
 */
export { formatTable } from './text-table.js';
