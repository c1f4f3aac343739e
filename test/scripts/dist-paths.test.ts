/**
 * The benchmarks and scripts load built modules by their path under `dist/` (no type checker sees
 * those strings): every such path must name a file the build writes, so that moving a module
 * cannot leave a benchmark or the demo pointing at nothing.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');

/** The `dist/` paths a script names: `dist('a/b.js')` and `join(root, 'dist', 'a', 'b.js')`. */
export function distPaths(source: string): string[] {
  const viaHelper = [...source.matchAll(/\bdist\('([^']+\.js)'\)/g)].map((m) => m[1] ?? '');
  const viaJoin = [...source.matchAll(/join\(\s*root,\s*'dist',((?:\s*'[^']+',?)+)\s*\)/g)].map(
    (m) => [...(m[1] ?? '').matchAll(/'([^']+)'/g)].map((p) => p[1]).join('/'),
  );
  return [...viaHelper, ...viaJoin];
}

const scripts = ['bench', 'scripts'].flatMap((dir) =>
  readdirSync(join(REPO, dir))
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => `${dir}/${f}`),
);

describe('dist paths of the benchmarks and scripts', () => {
  it('reads both ways of naming a built module', () => {
    const source = `const a = dist('runtime/x.js');\nconst b = join(root, 'dist', 'cli', 'main.js');`;
    expect(distPaths(source)).toEqual(['runtime/x.js', 'cli/main.js']);
  });

  it('names only files the build writes', () => {
    expect(existsSync(join(REPO, 'dist', 'cli', 'main.js')), 'run npm run build first').toBe(true);
    const named = scripts.flatMap((file) =>
      distPaths(readFileSync(join(REPO, file), 'utf8')).map((path) => ({ file, path })),
    );
    // the demo and every benchmark that loads a module by path are among them
    expect(new Set(named.map((n) => n.file))).toEqual(
      new Set([
        'bench/boundary.mjs',
        'bench/gateway.mjs',
        'bench/launch.mjs',
        'bench/lean.mjs',
        'bench/model-wire.mjs',
        'bench/native-team.mjs',
        'bench/registry.mjs',
        'scripts/demo.mjs',
      ]),
    );
    const missing = named.filter((n) => !existsSync(join(REPO, 'dist', n.path)));
    expect(missing).toEqual([]);
  });
});
