/**
 * The import graph of a source tree, read with the TypeScript compiler's own pre-processor: every
 * `import … from`, `export … from`, side-effect `import '…'` and dynamic `import('…')` of every
 * `.ts` file. Only relative specifiers are edges; packages and `node:` modules are not the tree's.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';

import ts from 'typescript';

/** One import: `from` imports `to` (both relative to the repository, `.ts` paths) as `specifier`. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
}

/** The relative specifiers a module's text imports, in order. */
export function importSpecifiers(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((f) => f.fileName).filter((name) => name.startsWith('.'));
}

/** Where `specifier`, imported by `from`, leads: the `.ts` source of a `.js` specifier. */
export function resolveSpecifier(from: string, specifier: string): string {
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  return target.endsWith('.js') ? `${target.slice(0, -3)}.ts` : target;
}

/** Every `.ts` file under `dir` (repository-relative, `/`-separated), sorted. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const path = join(abs, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/** The import edges of every `.ts` file under `dir` of the repository at `root`. */
export function importGraph(root: string, dir: string): ImportEdge[] {
  return sourceFiles(root, dir).flatMap((from) =>
    importSpecifiers(readFileSync(join(root, from), 'utf8')).map((specifier) => ({
      from,
      to: resolveSpecifier(from, specifier),
      specifier,
    })),
  );
}

/** The folder of a repository-relative file. */
export function folderOf(file: string): string {
  return dirname(file).split('\\').join('/');
}
