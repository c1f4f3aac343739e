/**
 * Shared set-up for live probe tests: a config dir with registry fragments and credentials, the
 * configurable fixture server, and a check that a process is really gone.
 */
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

import { runCli, type CliResult } from './cli.js';
import { tmpDir } from './tmp.js';

export const FIXTURE_SERVER = resolve('test/fixtures/probe/fixture-server.mjs');
export const EVERYTHING_HTTP = resolve('examples/servers/everything-http.mjs');
export const EVERYTHING_BIN = resolve('node_modules/.bin/mcp-server-everything');
export const NODE_DIR = dirname(process.execPath);

export interface FixtureConfig {
  mode?: 'normal' | 'banner' | 'crash' | 'hang' | 'garbage' | 'bad-version';
  tools?: Record<string, unknown>[];
  pageSize?: number;
  envFile?: string;
  pidFile?: string;
  spawnGrandchild?: boolean;
  ignoreSigterm?: boolean;
  stderrEnv?: string[];
  stderrText?: string;
  serverInfo?: { name: string; version: string; title?: string };
  instructions?: string;
  resources?: Record<string, unknown>[];
  resourceTemplates?: Record<string, unknown>[];
  prompts?: Record<string, unknown>[];
}

export interface Workspace {
  readonly root: string;
  readonly home: string;
  readonly configDir: string;
  /** Writes `tool-mcp.d/<name>` with `schema_version = 8` prepended. */
  fragment(name: string, body: string): Promise<void>;
  credentials(lines: string): Promise<void>;
  /** Writes the fixture's JSON config; returns its path. */
  fixture(name: string, config: FixtureConfig): Promise<string>;
  /**
   * Serves the fixture server as stdio server `id` (default `fx`): writes its JSON config and
   * `tool-mcp.d/10-<id>.toml` with `extra` lines (default: tool `alpha`, approval `prompt`).
   */
  fixtureServer(
    config: FixtureConfig,
    extra?: string,
    options?: { id?: string; command?: string },
  ): Promise<void>;
  /** A file path inside the workspace (not created). */
  path(name: string): string;
}

/** A fixture server that never answers, ignores SIGTERM and leaves a grandchild, writing its pids. */
export function hangingServer(pidFile: string): FixtureConfig {
  return { mode: 'hang', ignoreSigterm: true, spawnGrandchild: true, pidFile };
}

/** The `extra` lines of `fixtureServer` by default. */
export const ALPHA_PROMPT = 'enabled_tools = ["alpha"]\ndefault_tools_approval_mode = "prompt"';

export async function workspace(): Promise<Workspace> {
  const root = await tmpDir('codex-mmo-probe-');
  const home = join(root, 'home');
  const configDir = join(root, 'config');
  await mkdir(join(configDir, 'tool-mcp.d'), { recursive: true });
  await mkdir(home, { recursive: true });
  const ws: Workspace = {
    root,
    home,
    configDir,
    async fragment(name, body) {
      await writeFile(join(configDir, 'tool-mcp.d', name), `schema_version = 8\n\n${body}`);
    },
    async credentials(lines) {
      await writeFile(join(configDir, 'credentials.env'), lines, { mode: 0o600 });
    },
    async fixture(name, config) {
      const file = join(root, name);
      await writeFile(file, JSON.stringify(config));
      return file;
    },
    async fixtureServer(config, extra = ALPHA_PROMPT, options = {}) {
      const id = options.id ?? 'fx';
      const file = await ws.fixture(`${id}.json`, config);
      await ws.fragment(`10-${id}.toml`, fixtureFragment(id, file, extra, options.command));
    },
    path(name) {
      return join(root, name);
    },
  };
  return ws;
}

/**
 * Runs `codex-mmo ARGS --config-dir <config>` in-process from the workspace, with `--json` unless
 * `json` is false, in the launch environment `env` (default `launchEnv(ws)`).
 */
export function runIn(
  ws: Workspace,
  args: readonly string[],
  options: { env?: Record<string, string>; json?: boolean } = {},
): Promise<CliResult> {
  return runCli(
    [...args, '--config-dir', ws.configDir, ...(options.json === false ? [] : ['--json'])],
    { env: options.env ?? launchEnv(ws), home: ws.home, cwd: ws.root },
  );
}

/** A TOML basic string. */
export function q(text: string): string {
  return JSON.stringify(text);
}

/** `[tool_mcp_servers.ID]` running the fixture server with `configFile`. */
export function fixtureFragment(
  id: string,
  configFile: string,
  extra: string,
  command: string = process.execPath,
): string {
  return `[tool_mcp_servers.${id}]
transport = "stdio"
command = ${q(command)}
args = [${q(FIXTURE_SERVER)}, ${q(configFile)}]
${extra}
`;
}

/** Whether `pid` is gone (no such process, or only a zombie left). */
export async function processGone(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}

export function launchEnv(ws: Workspace, extra: Record<string, string> = {}) {
  return {
    PATH: `${NODE_DIR}:/usr/bin:/bin`,
    HOME: ws.home,
    LANG: 'C.UTF-8',
    ...extra,
  };
}
