/**
 * Operator configurations for profile tests: a temp config dir with registry fragments,
 * credentials.env and a pack, and a Directories value pointing at them.
 */
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

import type { Directories } from '../../src/paths/directories.js';
import { EXAMPLE_CONFIG, EXAMPLE_PACK, tmpDir } from './tmp.js';

/** node_modules/.bin: holds the real `codex` and `mcp-server-everything`. */
export const BIN_DIR = join(import.meta.dirname, '..', '..', 'node_modules', '.bin');

/** A PATH with the real Codex binary, node (for its launcher) and the system tools. */
export const PATH_WITH_CODEX = [BIN_DIR, process.env.PATH ?? ''].join(delimiter);

export interface Workspace {
  readonly base: string;
  readonly dirs: Directories;
  readonly pack: string;
}

/** A copy of examples/config and of the example pack, with credentials.env private. */
export async function exampleWorkspace(
  options: { credentials?: string; credentialsMode?: number } = {},
): Promise<Workspace> {
  const base = await tmpDir();
  const configDir = join(base, 'config');
  await cp(EXAMPLE_CONFIG, configDir, { recursive: true });
  const credentials = join(configDir, 'credentials.env');
  if (options.credentials !== undefined) await writeFile(credentials, options.credentials);
  await chmod(credentials, options.credentialsMode ?? 0o600);
  const pack = join(base, 'pack');
  await cp(EXAMPLE_PACK, pack, { recursive: true });
  return {
    base,
    pack,
    dirs: {
      configDir,
      dataDir: join(base, 'data'),
      stateDir: join(base, 'state'),
      baseCodexHome: join(base, 'codex-home'),
      codexBin: 'codex',
    },
  };
}

/** A workspace with the given fragments (file name → TOML) and pack profile.toml. */
export async function customWorkspace(
  fragments: Record<string, string>,
  profileToml: string,
  credentials = '',
): Promise<Workspace> {
  const base = await tmpDir();
  const configDir = join(base, 'config');
  await mkdir(join(configDir, 'tool-mcp.d'), { recursive: true });
  for (const [name, text] of Object.entries(fragments)) {
    await writeFile(join(configDir, 'tool-mcp.d', name), text);
  }
  await writeFile(join(configDir, 'credentials.env'), credentials, { mode: 0o600 });
  await chmod(join(configDir, 'credentials.env'), 0o600);
  const pack = join(base, 'pack');
  await mkdir(pack);
  await writeFile(join(pack, 'profile.toml'), profileToml);
  return {
    base,
    pack,
    dirs: {
      configDir,
      dataDir: join(base, 'data'),
      stateDir: join(base, 'state'),
      baseCodexHome: join(base, 'codex-home'),
      codexBin: 'codex',
    },
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
