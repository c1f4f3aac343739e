/**
 * A throwaway operator world for session and mesh tests: config dir (registry fragment,
 * credentials.env, codex-base.toml pointing Codex at a scripted model), data and state dirs, a
 * profile pack, a base Codex home holding `auth.json` and `.credentials.json`, and a way to run
 * the built CLI (`node dist/cli/main.js`) as a real process against it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { stringify } from 'smol-toml';

import { scriptedProviderConfig } from '../../src/codex/scripted-model.js';
import { tmpDir } from '../helpers/tmp.js';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'dist/cli/main.js');
export const CODEX = join(REPO, 'node_modules/.bin/codex');
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
  /** Scripted model base URL for codex-base.toml. */
  readonly modelUrl: string;
}

export async function makeWorld(spec: WorldSpec): Promise<World> {
  const root = await tmpDir('codex-mmo-session-');
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
  await writeFile(
    join(configDir, 'codex-base.toml'),
    stringify(scriptedProviderConfig(spec.modelUrl)),
  );
  if (spec.credentials !== undefined) {
    const file = join(configDir, 'credentials.env');
    await writeFile(file, spec.credentials);
    await chmod(file, 0o600);
  }
  await writeFile(join(packDir, 'profile.toml'), `schema_version = 8\n${spec.profile}`);
  await writeFile(join(baseCodexHome, 'auth.json'), '{"OPENAI_API_KEY": null}\n');
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

/** The one session directory of a world (after one run). */
export async function onlySession(
  world: World,
): Promise<{ dir: string; record: Record<string, unknown> }> {
  const { readdir } = await import('node:fs/promises');
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
  const { readdir } = await import('node:fs/promises');
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const parts: string[] = [];
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    parts.push(`--- ${path}\n${await readFile(path, 'utf8').catch(() => '')}`);
  }
  return parts.join('\n');
}

/** Parses `KEY=value` lines (the output of `env`). */
export function parseEnvOutput(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] !== undefined) out[match[1]] = match[2] ?? '';
  }
  return out;
}
