/**
 * The real Codex binary a test run uses. `npm ci` installs every supported version (the default
 * `@openai/codex` and `codex-0149`, an npm alias); `CODEX_MMO_TEST_CODEX` (`0.171` or `0.149`,
 * set per Vitest project) picks one, and `TEST_CODEX_BIN_DIR` is a directory holding it as `codex`.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');

interface InstalledCodex {
  /** The minor series, as `CODEX_MMO_TEST_CODEX` names it. */
  readonly series: string;
  /** The launcher script npm installed. */
  readonly launcher: string;
}

/** Every installed Codex a test run may select, newest first (the first is the default). */
export const INSTALLED_CODEX: readonly InstalledCodex[] = [
  { series: '0.171', launcher: join(REPO, 'node_modules/@openai/codex/bin/codex.js') },
  { series: '0.149', launcher: join(REPO, 'node_modules/codex-0149/bin/codex.js') },
];

function selected(): InstalledCodex {
  const wanted = process.env.CODEX_MMO_TEST_CODEX;
  const first = INSTALLED_CODEX[0]!;
  if (wanted === undefined || wanted === '') return first;
  const found = INSTALLED_CODEX.find((entry) => entry.series === wanted);
  if (found === undefined) {
    throw new Error(
      `CODEX_MMO_TEST_CODEX=${wanted} is not installed; use one of ${INSTALLED_CODEX.map((e) => e.series).join(', ')}`,
    );
  }
  return found;
}

const SELECTED = selected();

/** The selected Codex's minor series (`0.171`, `0.149`), for test names and version checks. */
export const TEST_CODEX_SERIES: string = SELECTED.series;

/** A directory holding the selected Codex as `codex` (for tests that put Codex on PATH). */
export const TEST_CODEX_BIN_DIR: string = join(REPO, 'node_modules/.codex-test', SELECTED.series);

/** The selected Codex binary (a symlink to its launcher, as `node_modules/.bin/codex` is). */
export const TEST_CODEX_BIN: string = join(TEST_CODEX_BIN_DIR, 'codex');

mkdirSync(TEST_CODEX_BIN_DIR, { recursive: true });
try {
  symlinkSync(SELECTED.launcher, TEST_CODEX_BIN);
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
}
