/**
 * Operator configurations for profile tests: a temp config dir with registry fragments,
 * credentials.env and a pack, and a Directories value pointing at them; and the same for
 * in-process CLI runs.
 */
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

import type { Directories } from '../../src/foundation/paths/directories.js';
import { TEST_CODEX_BIN_DIR } from './codex-bin.js';
import { runCli } from './cli.js';
import { EXAMPLE_CONFIG, EXAMPLE_PACK } from './examples.js';
import { tmpDir } from './tmp.js';

/** node_modules/.bin: holds the real `codex` and `mcp-server-everything`. */
export const BIN_DIR = join(import.meta.dirname, '..', '..', 'node_modules', '.bin');

/** A PATH with the real Codex binary, node (for its launcher) and the system tools. */
export const PATH_WITH_CODEX = [TEST_CODEX_BIN_DIR, BIN_DIR, process.env.PATH ?? ''].join(
  delimiter,
);

export interface Workspace {
  readonly base: string;
  readonly dirs: Directories;
  readonly pack: string;
}

/** The directories of a workspace under `base`: config, data, state and a Codex home. */
function workspaceAt(base: string, pack: string): Workspace {
  return {
    base,
    pack,
    dirs: {
      configDir: join(base, 'config'),
      dataDir: join(base, 'data'),
      stateDir: join(base, 'state'),
      baseCodexHome: join(base, 'codex-home'),
      codexBin: 'codex',
    },
  };
}

/** A copy of examples/config and of the example pack, with credentials.env private. */
export async function exampleWorkspace(
  options: { credentials?: string; credentialsMode?: number } = {},
): Promise<Workspace> {
  const ws = workspaceAt(await tmpDir(), '');
  const configDir = ws.dirs.configDir;
  await cp(EXAMPLE_CONFIG, configDir, { recursive: true });
  const credentials = join(configDir, 'credentials.env');
  if (options.credentials !== undefined) await writeFile(credentials, options.credentials);
  await chmod(credentials, options.credentialsMode ?? 0o600);
  const pack = join(ws.base, 'pack');
  await cp(EXAMPLE_PACK, pack, { recursive: true });
  return { ...ws, pack };
}

/** A workspace with the given fragments (file name → TOML) and pack profile.toml. */
export async function customWorkspace(
  fragments: Record<string, string>,
  profileToml: string,
  credentials = '',
): Promise<Workspace> {
  const ws = workspaceAt(await tmpDir(), '');
  const configDir = ws.dirs.configDir;
  await mkdir(join(configDir, 'tool-mcp.d'), { recursive: true });
  for (const [name, text] of Object.entries(fragments)) {
    await writeFile(join(configDir, 'tool-mcp.d', name), text);
  }
  await writeFile(join(configDir, 'credentials.env'), credentials, { mode: 0o600 });
  await chmod(join(configDir, 'credentials.env'), 0o600);
  const pack = join(ws.base, 'pack');
  await mkdir(pack);
  await writeFile(join(pack, 'profile.toml'), profileToml);
  return { ...ws, pack };
}

/**
 * For CLI tests: a copy of examples/config (credentials.env private, or `credentials` written
 * into it) with the data dir and config dir passed through the environment, and `run` running
 * the CLI in-process there (`extra` variables on top of the environment).
 */
export async function exampleCli(options: { credentials?: string; path?: string } = {}) {
  const base = await tmpDir();
  const config = join(base, 'config');
  await cp(EXAMPLE_CONFIG, config, { recursive: true });
  if (options.credentials !== undefined) {
    await writeFile(join(config, 'credentials.env'), options.credentials);
  }
  await chmod(join(config, 'credentials.env'), 0o600);
  const env: Record<string, string | undefined> = {
    PATH: options.path ?? process.env.PATH,
    HOME: base,
    CODEX_MMO_DATA_DIR: join(base, 'data'),
    CODEX_MMO_CONFIG_DIR: config,
  };
  return {
    base,
    config,
    env,
    run: (args: string[], extra: Record<string, string> = {}) =>
      runCli(args, { env: { ...env, ...extra }, home: base, cwd: base }),
  };
}

/** A stdio fragment whose command is `node` (always resolvable in tests). */
export function stdioFragment(
  id: string,
  options: { tools?: string[]; envVars?: string[]; command?: string; extra?: string } = {},
): string {
  const tools = options.tools ?? ['alpha', 'beta'];
  return `schema_version = 8

[tool_mcp_servers.${id}]
transport = "stdio"
command = "${options.command ?? 'node'}"
enabled_tools = [${tools.map((t) => JSON.stringify(t)).join(', ')}]
default_tools_approval_mode = "prompt"
${options.envVars !== undefined ? `env_vars = [${options.envVars.map((v) => JSON.stringify(v)).join(', ')}]\n` : ''}${options.extra ?? ''}`;
}
