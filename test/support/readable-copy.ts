/**
 * A copy of the built `dist/` and the process fixtures that every user may read, for commands a
 * test runs as an unprivileged user: the checkout may lie in a directory only its owner can
 * enter (a clone in root's 0700 home). Made once per test file under the system temporary
 * directory, and removed after it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterAll } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');

export interface ReadableCopy {
  /** The copy's root: a working directory every user may enter. */
  readonly root: string;
  /** `dist/cli/main.js` of the copy (the CLI bundle, its dependencies included). */
  readonly cli: string;
  /** A process fixture (`test/fixtures/process/NAME`) of the copy. */
  fixture(name: string): string;
  /** The environment that points a process fixture at the copy's built library. */
  readonly env: Readonly<Record<string, string>>;
}

let made: ReadableCopy | undefined;

afterAll(() => {
  if (made !== undefined) rmSync(made.root, { recursive: true, force: true });
  made = undefined;
});

export function readableCopy(): ReadableCopy {
  if (made !== undefined) return made;
  const dist = join(REPO, 'dist');
  if (!existsSync(join(dist, 'cli', 'main.js'))) {
    throw new Error(`${dist} is missing; run 'npm run build' first`);
  }
  const root = mkdtempSync(join(tmpdir(), 'mmo-readable-'));
  cpSync(dist, join(root, 'dist'), { recursive: true });
  cpSync(join(REPO, 'test/fixtures/process'), join(root, 'fixtures'), { recursive: true });
  execFileSync('chmod', ['-R', 'a+rX', root]);
  made = {
    root,
    cli: join(root, 'dist', 'cli', 'main.js'),
    fixture: (name) => join(root, 'fixtures', name),
    env: {
      MMO_PROCESS_LIB: pathToFileURL(join(root, 'dist', 'foundation', 'process')).href + '/',
    },
  };
  return made;
}
