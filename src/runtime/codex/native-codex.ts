/**
 * The native Codex binary behind the npm launcher (`@openai/codex`'s `bin/codex.js`): sessions
 * start it directly, with the two variables the launcher sets, instead of keeping a Node process
 * above every Codex. The platform package's `codex-package.json` names the entry point; the binary
 * finds its own `codex-path` and `codex-resources` next to it, so no PATH is added.
 */
import { constants } from 'node:fs';
import { access, readFile, realpath, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

import { CODEX_VERSIONS } from '../../config/codex/codex-versions.js';

/** What runs for a located Codex: the command and what its environment gains. */
export interface CodexLaunch {
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
}

/** The launcher's platform → Rust target triple (its `PLATFORM_PACKAGE_BY_TARGET`, Unix rows). */
const TARGET_TRIPLES: Readonly<Record<string, string>> = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'android-x64': 'x86_64-unknown-linux-musl',
  'android-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
};

/** Entry points inside `vendor/<triple>/` when `codex-package.json` names none (version table). */
const FALLBACK_ENTRIES = [...new Set(CODEX_VERSIONS.map((row) => row.nativeLaunch.entry))];

async function isExecutable(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The `@openai/codex` package root a launcher path belongs to, if it is one. */
async function launcherPackageRoot(path: string): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return undefined;
  }
  if (basename(real) !== 'codex.js' || basename(dirname(real)) !== 'bin') return undefined;
  const root = dirname(dirname(real));
  const manifest = await readJson(join(root, 'package.json'));
  return field(manifest, 'name') === '@openai/codex' ? root : undefined;
}

/** `vendor/` directories to look in: the platform package's first, then the package's own. */
function vendorRoots(root: string, platformPackage: string): string[] {
  const roots: string[] = [];
  try {
    const resolved = createRequire(join(root, 'package.json')).resolve(
      `${platformPackage}/package.json`,
    );
    roots.push(join(dirname(resolved), 'vendor'));
  } catch {
    // not installed as a separate package: the launcher then looks in its own vendor/
  }
  roots.push(join(root, 'vendor'));
  return roots;
}

async function nativeEntry(targetDir: string): Promise<string | undefined> {
  const layout = await readJson(join(targetDir, 'codex-package.json'));
  const entry = field(layout, 'entrypoint');
  const entries = typeof entry === 'string' ? [entry, ...FALLBACK_ENTRIES] : FALLBACK_ENTRIES;
  for (const candidate of entries) {
    const path = join(targetDir, candidate);
    if (await isExecutable(path)) return path;
  }
  return undefined;
}

/**
 * How to start the Codex at `path`: its native binary with the launcher's variables when `path` is
 * the npm launcher and the binary is installed; otherwise `path` itself, unchanged.
 */
export async function resolveCodexLaunch(
  path: string,
  platform: string = process.platform,
  arch: string = process.arch,
): Promise<CodexLaunch> {
  const unchanged: CodexLaunch = { command: path, env: {} };
  const root = await launcherPackageRoot(path);
  const triple = TARGET_TRIPLES[`${platform}-${arch}`];
  if (root === undefined || triple === undefined) return unchanged;
  const platformPackage = `@openai/codex-${platform === 'android' ? 'linux' : platform}-${arch}`;
  for (const vendor of vendorRoots(root, platformPackage)) {
    const native = await nativeEntry(join(vendor, triple));
    if (native !== undefined) {
      return {
        command: native,
        env: { CODEX_MANAGED_PACKAGE_ROOT: root, CODEX_MANAGED_BY_NPM: '1' },
      };
    }
  }
  return unchanged;
}
