/**
 * Plain-text tables for terminal output (pure): left-aligned columns with two-space gutters and
 * no trailing spaces. Used by the CLI's listings and by reports built below it. Every cell is
 * made terminal-safe, so a cell is one line and sends no terminal sequence.
 */
import { terminalSafe } from './terminal-safe.js';

/** Left-aligned table with two-space gutters; no trailing spaces; cells terminal-safe. */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const safeHeaders = headers.map((h) => terminalSafe(h));
  const safeRows = rows.map((r) => r.map((c) => terminalSafe(c)));
  const widths = safeHeaders.map((h, i) =>
    Math.max(h.length, ...safeRows.map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(safeHeaders), ...safeRows.map(line)].join('\n') + '\n';
}
