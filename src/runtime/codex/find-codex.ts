/**
 * Locates the Codex binary (`--codex-bin`, `$CODEX_MMO_CODEX_BIN` or `codex` on PATH, already
 * chosen by `resolveDirectories`) and asks it for its version with `codex --version`, or, given
 * a data dir, reads what the very same binary file printed before (version-memo.ts).
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

import type { Environment } from '../../foundation/paths/directories.js';
import { resolveCodexLaunch, type CodexLaunch } from './native-codex.js';
import { readVersionMemo, versionMemoKey, writeVersionMemo } from './version-memo.js';

/** How long `codex --version` may take. */
export const CODEX_VERSION_TIMEOUT_MS = 15_000;

/** The only launch-environment names `codex --version` runs with. */
export const VERSION_ENV_NAMES: readonly string[] = [
  'HOME',
  'PATH',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'TZ',
  'TMPDIR',
];

export type CodexDetection =
  | {
      readonly kind: 'found';
      /** The located binary, as the operator named it (the npm launcher or a native binary). */
      readonly path: string;
      readonly version: string;
      /** What sessions start: the native binary behind the npm launcher when there is one. */
      readonly launch: CodexLaunch;
    }
  | { readonly kind: 'not-found'; readonly reason: string }
  | { readonly kind: 'failed'; readonly path: string; readonly reason: string };

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The executable `codexBin` names: a path (containing `/`, relative to `cwd`) as it is, a bare
 * name through the absolute entries of `env.PATH`.
 */
export async function locateCodex(
  codexBin: string,
  env: Environment,
  cwd?: string,
): Promise<string | undefined> {
  if (codexBin === '') return undefined;
  if (codexBin.includes('/')) {
    const path = cwd !== undefined ? resolve(cwd, codexBin) : resolve(codexBin);
    return (await isExecutableFile(path)) ? path : undefined;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, codexBin);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** The version number in `codex --version` output (`codex-cli 0.149.1` → `0.149.1`). */
export function parseCodexVersion(output: string): string | undefined {
  const match = /\b(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)\b/.exec(output);
  return match?.[1];
}

function runVersion(
  path: string,
  env: Environment,
): Promise<{ ok: true; output: string } | { ok: false; reason: string }> {
  // built, not inherited: `codex --version` needs no credential of the launch environment
  const childEnv: Record<string, string> = {};
  for (const name of VERSION_ENV_NAMES) {
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value !== undefined) childEnv[name] = value;
  }
  return new Promise((resolve) => {
    execFile(
      path,
      ['--version'],
      { env: childEnv, timeout: CODEX_VERSION_TIMEOUT_MS, maxBuffer: 64 * 1024, windowsHide: true },
      (error, stdout) => {
        if (error) {
          const reason =
            (error as { killed?: boolean }).killed === true
              ? `\`${path} --version\` did not finish within ${CODEX_VERSION_TIMEOUT_MS / 1000} s`
              : `\`${path} --version\` failed (${(error as { code?: unknown }).code !== undefined ? `exit ${String((error as { code?: unknown }).code)}` : 'could not start'})`;
          resolve({ ok: false, reason });
          return;
        }
        resolve({ ok: true, output: stdout });
      },
    );
  });
}

/** `--version`'s output, remembered in `memoDir` (a data dir) when one is given. */
async function versionOutput(
  command: string,
  env: Environment,
  memoDir: string | undefined,
): Promise<{ ok: true; output: string } | { ok: false; reason: string }> {
  const key = memoDir !== undefined ? await versionMemoKey(command) : undefined;
  if (memoDir === undefined || key === undefined) return runVersion(command, env);
  const remembered = await readVersionMemo(memoDir, key);
  if (remembered !== undefined && parseCodexVersion(remembered) !== undefined) {
    return { ok: true, output: remembered };
  }
  const result = await runVersion(command, env);
  if (result.ok && parseCodexVersion(result.output) !== undefined) {
    await writeVersionMemo(memoDir, key, result.output);
  }
  return result;
}

/**
 * Finds Codex and reads its version, saying why when it cannot. With `memoDir`, the version a
 * binary file printed before is reused until that file changes.
 */
export async function detectCodex(
  codexBin: string,
  env: Environment,
  cwd?: string,
  memoDir?: string,
): Promise<CodexDetection> {
  const path = await locateCodex(codexBin, env, cwd);
  if (path === undefined) {
    return {
      kind: 'not-found',
      reason: codexBin.includes('/')
        ? `${codexBin} is not an executable file`
        : `\`${codexBin}\` is not on PATH`,
    };
  }
  const launch = await resolveCodexLaunch(path);
  const result = await versionOutput(launch.command, env, memoDir);
  if (!result.ok) return { kind: 'failed', path, reason: result.reason };
  const version = parseCodexVersion(result.output);
  if (version === undefined) {
    return { kind: 'failed', path, reason: `\`${path} --version\` printed no version number` };
  }
  return { kind: 'found', path, version, launch };
}

/** The Codex binary and its version, or undefined when it cannot be found or run. */
export async function findCodex(
  codexBin: string,
  env: Environment,
): Promise<{ path: string; version: string } | undefined> {
  const detection = await detectCodex(codexBin, env);
  return detection.kind === 'found'
    ? { path: detection.path, version: detection.version }
    : undefined;
}
