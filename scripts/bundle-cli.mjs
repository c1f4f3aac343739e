// Bundles the compiled CLI (`dist/cli/main.js`, written by tsc) into itself and shared chunks
// under `dist/chunks/`, dependencies included, so that a command loads a few files instead of a
// tree of modules: start-up is most of the time of a short command. Each command stays its own
// lazily imported chunk. Then writes `dist/build-id.txt`, a hash of everything built, which
// caches use to tell one build from another. The library (`dist/index.js`) is left as tsc wrote it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

rmSync(join(dist, 'chunks'), { recursive: true, force: true });
rmSync(join(dist, 'cli', 'main.js.map'), { force: true });
await build({
  entryPoints: { 'cli/main': join(dist, 'cli', 'main.js') },
  outdir: dist,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // bundled CommonJS dependencies require Node's built-in modules; the function is made on the
  // first call, since most chunks never call it
  banner: {
    js: [
      "import { createRequire as __cmmCreateRequire } from 'node:module';",
      'let __cmmRequire;',
      'const require = (id) => (__cmmRequire ??= __cmmCreateRequire(import.meta.url))(id);',
    ].join(' '),
  },
  legalComments: 'none',
  logLevel: 'warning',
});

const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith('.js')) files.push(path);
  }
};
walk(dist);
const hash = createHash('sha256');
for (const file of files.sort())
  hash.update(`${relative(dist, file)}\0`).update(readFileSync(file));
writeFileSync(join(dist, 'build-id.txt'), `${hash.digest('hex')}\n`);
