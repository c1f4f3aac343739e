/**
 * Whether one absolute path is a directory or lies below it, by its components (pure): `/a/bc`
 * is not within `/a/b`, and every path is within `/`.
 */

export function pathWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}
