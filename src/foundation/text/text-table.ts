/**
 * Plain-text tables for terminal output (pure): left-aligned columns with two-space gutters and
 * no trailing spaces. Used by the CLI's listings and by reports built below it.
 */

/** Left-aligned table with two-space gutters; no trailing spaces. */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}
