/**
 * A throwaway operator world for session, mesh and smoke tests: config dir (registry fragment,
 * credentials.env, codex-base.toml pointing Codex at a scripted model), data and state dirs, a
 * profile pack, a base Codex home holding `auth.json` and `.credentials.json`; builders for the
 * registry entries (the echo-server fixture) and profiles those tests use; and ways to run the
 * built CLI (`node dist/cli/main.js`) as a real process and to see what it left running.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { stringify } from 'smol-toml';

import {
  scriptedProviderConfig,
  type ModelRequest,
  type ScriptedItem,
} from '../../src/runtime/codex/scripted-model.js';
import { TEST_CODEX_BIN } from './codex-bin.js';
import { OUTSIDE_TMP, tmpDir } from './tmp.js';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'dist/cli/main.js');
export const CODEX = TEST_CODEX_BIN;
export const ECHO_SERVER = join(REPO, 'test/fixtures/servers/echo-server.mjs');

export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing; run 'npm run build' first`);
}

export interface World {
  readonly root: string;
  readonly home: string;
  readonly configDir: string;
  readonly dataDir: string;
  readonly stateDir: string;
  readonly baseCodexHome: string;
  readonly packDir: string;
  readonly workDir: string;
  /** Global options pointing the CLI at this world. */
  readonly dirArgs: readonly string[];
  /** A launch environment: PATH, HOME and CODEX_HOME of this world. */
  readonly env: Record<string, string>;
}

export interface WorldSpec {
  /** Registry fragment text (`schema_version = 8` is prepended), or a function of the world root. */
  readonly registry: string | ((root: string) => string);
  /** profile.toml text (`schema_version = 8` is prepended). */
  readonly profile: string;
  readonly credentials?: string;
  /** Scripted model base URL for codex-base.toml (none is written without it). */
  readonly modelUrl?: string;
  /**
   * The scripted provider requires OpenAI auth, as the built-in provider does: the base Codex
   * home's `auth.json` holds a (fake) API key, and every process home gets a copy of it.
   */
  readonly providerAuth?: boolean;
  /** The world lives outside the system temporary directory (`OUTSIDE_TMP`). */
  readonly outsideTmp?: boolean;
}

/** Options of a registry entry for the echo-server fixture (see its header). */
export interface EchoServerOptions {
  /** `--tools` of the fixture (default: the enabled tools). A trailing `!` marks a writing tool. */
  readonly tools?: string;
  /** `enabled_tools` (default: the fixture's tools, or `["echo"]`). */
  readonly enabled?: readonly string[];
  readonly envVars?: readonly string[];
  /** Further fixture arguments: `--fail`, `--delay-ms N`, `--record-env FILE`, … */
  readonly args?: readonly string[];
  /** `default_tools_approval_mode` (default `approve`). */
  readonly approval?: string;
  readonly startupTimeoutSec?: number;
}

/** A `[tool_mcp_servers.ID]` entry that runs the echo-server fixture with this Node binary. */
export function echoServer(id: string, options: EchoServerOptions = {}): string {
  const enabled = options.enabled ??
    options.tools?.split(',').map((t) => t.replace(/!$/, '')) ?? ['echo'];
  const args = [
    ECHO_SERVER,
    '--tools',
    options.tools ?? enabled.join(','),
    ...(options.args ?? []),
  ];
  const lines = [
    `[tool_mcp_servers.${id}]`,
    'transport = "stdio"',
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify(args)}`,
    `enabled_tools = ${JSON.stringify(enabled)}`,
    `default_tools_approval_mode = "${options.approval ?? 'approve'}"`,
  ];
  if (options.envVars !== undefined) lines.push(`env_vars = ${JSON.stringify(options.envVars)}`);
  if (options.startupTimeoutSec !== undefined) {
    lines.push(`startup_timeout_sec = ${String(options.startupTimeoutSec)}`);
  }
  return `\n${lines.join('\n')}\n`;
}

/**
 * A `[tool_mcp_servers.ID]` entry for a Streamable HTTP server at `url` offering `note` (the test
 * server in http-mcp-server.ts), authenticated by `WEB_TOKEN` and the `X-Workspace` header from
 * `WEB_WORKSPACE`, with the literal headers given.
 */
export function webServer(
  id: string,
  url: string,
  headers: Readonly<Record<string, string>> = {},
): string {
  const literal = Object.entries(headers).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  return `
[tool_mcp_servers.${id}]
transport = "streamable_http"
url = "${url}"
bearer_token_env_var = "WEB_TOKEN"
enabled_tools = ["note"]
default_tools_approval_mode = "approve"
${literal.length > 0 ? `\n[tool_mcp_servers.${id}.http_headers]\n${literal.join('\n')}\n` : ''}
[tool_mcp_servers.${id}.env_http_headers]
X-Workspace = "WEB_WORKSPACE"
`;
}

/** A grant in `profileToml`: `{}` grants the server as the registry defines it. */
export interface GrantOptions {
  readonly required?: boolean;
  readonly tools?: readonly string[];
}

/** A role in `profileToml`; its instructions default to `ROLE-<NAME>`, a marker tests look for. */
export interface RoleOptions {
  readonly instructions?: string;
  readonly natives?: readonly string[];
  readonly spawn?: readonly string[];
  readonly control?: readonly string[];
  readonly grants?: Readonly<Record<string, GrantOptions>>;
}

/** profile.toml text without `schema_version` (`makeWorld` adds it). */
export function profileToml(
  name: string,
  root: string,
  roles: Readonly<Record<string, RoleOptions>>,
): string {
  const out = [`name = "${name}"`, `root = "${root}"`];
  for (const [role, options] of Object.entries(roles)) {
    out.push(
      '',
      `[agents.${role}]`,
      `description = "${role}"`,
      `instructions = ${JSON.stringify(options.instructions ?? `ROLE-${role.toUpperCase()}`)}`,
    );
    if (options.natives !== undefined) {
      out.push(`native_agents = ${JSON.stringify(options.natives)}`);
    }
    if (options.spawn !== undefined) out.push(`spawn = ${JSON.stringify(options.spawn)}`);
    if (options.control !== undefined) out.push(`control = ${JSON.stringify(options.control)}`);
    for (const [server, grant] of Object.entries(options.grants ?? {})) {
      out.push('', `[agents.${role}.tool_mcp_servers.${server}]`);
      if (grant.required !== undefined) out.push(`required = ${String(grant.required)}`);
      if (grant.tools !== undefined) out.push(`enabled_tools = ${JSON.stringify(grant.tools)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

export async function makeWorld(spec: WorldSpec): Promise<World> {
  const root = await tmpDir(
    'codex-mmo-session-',
    spec.outsideTmp === true ? OUTSIDE_TMP : undefined,
  );
  const home = join(root, 'home');
  const configDir = join(root, 'config');
  const dataDir = join(root, 'data');
  const stateDir = join(root, 'state');
  const baseCodexHome = join(root, 'base-codex');
  const packDir = join(root, 'pack');
  const workDir = join(root, 'work');
  for (const dir of [
    home,
    join(configDir, 'tool-mcp.d'),
    dataDir,
    stateDir,
    baseCodexHome,
    packDir,
    workDir,
  ]) {
    await mkdir(dir, { recursive: true });
  }
  const registry = typeof spec.registry === 'string' ? spec.registry : spec.registry(root);
  await writeFile(join(configDir, 'tool-mcp.d', '10-test.toml'), `schema_version = 8\n${registry}`);
  if (spec.modelUrl !== undefined) {
    const base = scriptedProviderConfig(spec.modelUrl);
    if (spec.providerAuth === true) {
      const providers = base.model_providers as Record<string, Record<string, unknown>>;
      for (const provider of Object.values(providers)) provider.requires_openai_auth = true;
    }
    await writeFile(join(configDir, 'codex-base.toml'), stringify(base));
  }
  if (spec.credentials !== undefined) {
    const file = join(configDir, 'credentials.env');
    await writeFile(file, spec.credentials);
    await chmod(file, 0o600);
  }
  await writeFile(join(packDir, 'profile.toml'), `schema_version = 8\n${spec.profile}`);
  await writeFile(
    join(baseCodexHome, 'auth.json'),
    spec.providerAuth === true
      ? '{"OPENAI_API_KEY": "sk-fake-test-key"}\n'
      : '{"OPENAI_API_KEY": null}\n',
  );
  await writeFile(join(baseCodexHome, '.credentials.json'), '{"never": "copied"}\n');
  return {
    root,
    home,
    configDir,
    dataDir,
    stateDir,
    baseCodexHome,
    packDir,
    workDir,
    dirArgs: [
      '--config-dir',
      configDir,
      '--data-dir',
      dataDir,
      '--state-dir',
      stateDir,
      '--codex-bin',
      CODEX,
    ],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: baseCodexHome },
  };
}

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunningCli {
  readonly pid: number | undefined;
  readonly done: Promise<CliRun>;
  kill(signal: NodeJS.Signals): void;
}

/** Starts `node dist/cli/main.js ARGS` in `cwd` with exactly `env`. */
export function startCli(
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs = 80_000,
): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<CliRun>((resolveDone) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveDone({ code, signal, stdout, stderr });
    });
  });
  return { pid: child.pid, done, kill: (signal) => child.kill(signal) };
}

export function runCliProcess(
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs?: number,
): Promise<CliRun> {
  return startCli(args, env, cwd, timeoutMs).done;
}

/** The arguments with the world's directory options, placed before any `--`. */
export function withDirArgs(world: World, args: readonly string[]): string[] {
  const at = args.indexOf('--');
  return at < 0
    ? [...args, ...world.dirArgs]
    : [...args.slice(0, at), ...world.dirArgs, ...args.slice(at)];
}

/** Starts `codex-mmo ARGS` against `world`: its directories, its environment plus `env`, its work dir. */
export function startInWorld(
  world: World,
  args: readonly string[],
  env: Record<string, string> = {},
): RunningCli {
  return startCli(withDirArgs(world, args), { ...world.env, ...env }, world.workDir);
}

/** Runs `codex-mmo ARGS` against `world` to its end. */
export function runInWorld(
  world: World,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  return startInWorld(world, args, env).done;
}

/** The one session directory of a world (after one run). */
export async function onlySession(
  world: World,
): Promise<{ dir: string; record: Record<string, unknown> }> {
  const ids = await readdir(join(world.stateDir, 'sessions'));
  if (ids.length !== 1 || ids[0] === undefined)
    throw new Error(`expected one session, found ${ids.length}`);
  const dir = join(world.stateDir, 'sessions', ids[0]);
  const record = JSON.parse(await readFile(join(dir, 'session.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  return { dir, record };
}

/** Every file under `dir` (recursively) as text, for canary scans. */
export async function allText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const parts: string[] = [];
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    parts.push(`--- ${path}\n${await readFile(path, 'utf8').catch(() => '')}`);
  }
  return parts.join('\n');
}

/**
 * A shell command for a scripted model: prints the environment, then `AUTH_COPY_PRESENT=yes` when
 * the process's Codex home holds its copy of auth.json (read back with `parseEnvOutput`).
 */
export const ENV_AND_AUTH_COMMAND =
  'env; test -f "$CODEX_HOME/auth.json" && echo AUTH_COPY_PRESENT=yes';

/** Parses `KEY=value` lines (the output of `env`). */
export function parseEnvOutput(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] !== undefined) out[match[1]] = match[2] ?? '';
  }
  return out;
}

/** Waits until `condition` holds, checking every 100 ms; throws after `ms`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  ms: number,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The command line of process `pid`, its arguments joined by spaces ('' when it is gone). */
export async function commandOf(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
}

/** Processes (other than this one) whose command line or environment mentions `text`. */
/** Alive and not a zombie waiting for a parent that may never reap it (containers' init). */
export async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

export async function processesMentioning(text: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    for (const file of ['cmdline', 'environ']) {
      const content = await readFile(`/proc/${entry}/${file}`, 'utf8').catch(() => '');
      if (content.includes(text)) {
        found.push(Number(entry));
        break;
      }
    }
  }
  return found;
}

/** The scripted model's call of Codex's shell tool (`exec_command`, not a login shell). */
export function shellCall(cmd: string): ScriptedItem {
  return { type: 'function_call', name: 'exec_command', arguments: { cmd, login: false } };
}

/** A one-role profile whose root `lead` has `srv` and works with `permissions = "workspace-write"`. */
export function workspaceLeadProfile(name: string): string {
  return profileToml(name, 'lead', { lead: { grants: { srv: {} } } }).replace(
    '[agents.lead]\n',
    '[agents.lead]\npermissions = "workspace-write"\n',
  );
}

/** Model requests held open until released, so a role stays at work for as long as a test needs. */
export class HeldRequests {
  private readonly releases: (() => void)[] = [];

  /** A reply that comes only when `releaseAll` is called. */
  hold(): Promise<ScriptedItem[]> {
    return new Promise((resolve) =>
      this.releases.push(() => {
        resolve([{ type: 'message', text: 'late' }]);
      }),
    );
  }

  /** Answers every held request. */
  releaseAll(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

/** The lead's `mmo_mesh` call starting a `worker` on the task `HANG`. */
export const SPAWN_WORKER: ScriptedItem = {
  type: 'function_call',
  namespace: 'mcp__mmo_mesh',
  name: 'spawn_participant',
  arguments: { role: 'worker', task: 'HANG' },
};

/**
 * A script for sessions that must stay busy: given a prompt containing `SPAWN`, the lead spawns a
 * worker; the worker's requests and every later one of the lead are held, or answered by `after`.
 */
export function spawnWorkerThenHold(
  held: HeldRequests,
  after: () => ScriptedItem[] | Promise<ScriptedItem[]> = () => held.hold(),
): (request: ModelRequest) => ScriptedItem[] | Promise<ScriptedItem[]> {
  return (request) => {
    if (request.developerTexts.some((t) => t.includes('ROLE-WORKER'))) return held.hold();
    if (request.userTexts.some((t) => t.includes('SPAWN')) && request.toolOutputs.length === 0) {
      return [SPAWN_WORKER];
    }
    return after();
  };
}

/** Running echo-server fixtures whose command line names `marker` (a file of their own). */
export function runningEchoServers(marker: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const [, script] = cmdline.split('\0');
    if (script === ECHO_SERVER && cmdline.includes(marker)) count++;
  }
  return count;
}

/**
 * Names `model` in the world's codex-base.toml: a catalog model whose request shape differs from
 * the scripted model's (code mode, deferred tools), still answered by the scripted provider.
 */
export async function useCatalogModel(world: World, model: string): Promise<void> {
  const base = join(world.configDir, 'codex-base.toml');
  const text = await readFile(base, 'utf8');
  await writeFile(base, text.replace(/^model = .*$/m, `model = ${JSON.stringify(model)}`));
}
