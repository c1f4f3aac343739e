/**
 * Plain Codex on a home codex-mmo rendered, without a session: `compileInTemp` writes a registry
 * fragment, base settings pointing at a scripted model and a pack into a new temporary root and
 * compiles the pack there; `codexExec` runs one `codex exec` turn on a written home.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { stringify } from 'smol-toml';

import { compileProfile } from '../../src/config/compile/compile-profile.js';
import type { ResolvedPlan } from '../../src/config/profile/types.js';
import type { StoredSnapshot } from '../../src/config/snapshot/types.js';
import type { Diagnostic } from '../../src/foundation/diagnostics/diagnostic.js';
import { resolveDirectories } from '../../src/foundation/paths/directories.js';
import { scriptedProviderConfig } from '../../src/runtime/codex/scripted-model.js';
import { tmpDir } from './tmp.js';

export interface CompiledInTemp {
  readonly root: string;
  readonly diagnostics: readonly Diagnostic[];
  readonly stored: StoredSnapshot;
  readonly plan: ResolvedPlan;
}

/** Compiles `pack` against the registry fragment `registry` with the model at `modelUrl`. */
export async function compileInTemp(spec: {
  readonly registry: string;
  readonly pack: string;
  readonly modelUrl: string;
}): Promise<CompiledInTemp> {
  const root = await tmpDir();
  const configDir = join(root, 'config');
  await mkdir(join(configDir, 'tool-mcp.d'), { recursive: true });
  await writeFile(join(configDir, 'tool-mcp.d', '10-servers.toml'), spec.registry);
  // the operator's base settings point every process at the scripted model
  await writeFile(
    join(configDir, 'codex-base.toml'),
    stringify(scriptedProviderConfig(spec.modelUrl)),
  );
  const packDir = join(root, 'pack');
  await mkdir(packDir);
  await writeFile(join(packDir, 'profile.toml'), spec.pack);
  const dirs = resolveDirectories({}, root, {
    configDir,
    dataDir: join(root, 'data'),
    stateDir: join(root, 'state'),
  });
  const compiled = await compileProfile({ nameOrPath: packDir, dirs, cwd: root });
  if (compiled.stored === undefined || compiled.plan === undefined) {
    throw new Error(`the pack does not compile: ${JSON.stringify(compiled.diagnostics)}`);
  }
  return { root, diagnostics: compiled.diagnostics, stored: compiled.stored, plan: compiled.plan };
}

export interface ExecResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `codex exec 'Do the task.'` of `codex` on `codexHome` in `root/work`, with `env` added. */
export async function codexExec(
  codex: string,
  root: string,
  codexHome: string,
  options: { readonly env?: Record<string, string>; readonly timeoutMs: number },
): Promise<ExecResult> {
  const work = join(root, 'work');
  await mkdir(work, { recursive: true });
  return new Promise((resolve) => {
    execFile(
      codex,
      ['exec', '--skip-git-repo-check', '--ephemeral', '--strict-config', 'Do the task.'],
      {
        cwd: work,
        env: { PATH: process.env.PATH, HOME: root, CODEX_HOME: codexHome, ...options.env },
        timeout: options.timeoutMs,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    ).stdin?.end();
  });
}
