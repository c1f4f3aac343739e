/**
 * Points a rendered Codex home at the gateway (pure): every `[mcp_servers.X]` of `config.toml`
 * and of each role file, except `mmo_mesh`, keeps its grant settings (enabled, required, tool
 * lists, approval modes, timeouts) but loses its transport — command, arguments, `env`,
 * `env_vars`, URL, headers — for the gateway's: its loopback URL with the route's bearer token
 * variable (`http`), or the relay command, which receives only its own token variable (`relay`).
 * The token variables are added to the shell policy's `exclude`, so the model's shell never sees
 * them. Where the gateway serves `mmo_mesh` too, its entry gets the URL with the process's mesh
 * credential variable as bearer. Snapshots and `snapshot render` stay plain definitions; this happens at session launch.
 */
import { parse, stringify } from 'smol-toml';

import { CODEX_VERSIONS } from '../../config/codex/codex-versions.js';
import { MESH_TOKEN_ENV, type MeshLaunch, type RenderedHome } from '../../config/compile/types.js';
import { RESERVED_SERVER_ID } from '../../config/registry/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import { tokenEnvName } from './gateway-protocol.js';

/**
 * Keys of a server table that say how to reach the server, in any supported Codex version; the
 * relay replaces all of them.
 */
export const TRANSPORT_KEYS: readonly string[] = [
  ...new Set(CODEX_VERSIONS.flatMap((row) => row.mcpTransportKeys)),
];

export interface RelayTarget {
  /** The command prefix that runs the codex-mmo CLI. */
  readonly cli: MeshLaunch;
  readonly socketPath: string;
  /** `root` or the participant id. */
  readonly process: string;
  /** The process's servers, in the order their token variables are numbered. */
  readonly servers: readonly string[];
  /** The gateway's loopback URL (`http` transport); absent: relays. */
  readonly url?: string;
  /** `mmo_mesh` is a route at `url` too, opened with the process's mesh credential. */
  readonly meshOverUrl?: boolean;
}

/** The relay command of one server of a process. */
export function relayLaunch(target: RelayTarget, server: string): MeshLaunch {
  const index = target.servers.indexOf(server);
  return {
    command: target.cli.command,
    args: [
      ...target.cli.args,
      'gateway',
      'connect',
      '--socket',
      target.socketPath,
      '--process',
      target.process,
      '--server',
      server,
      '--token-env',
      tokenEnvName(index),
    ],
  };
}

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function relayServers(servers: unknown, target: RelayTarget): void {
  if (!isTable(servers)) return;
  const mesh = servers[RESERVED_SERVER_ID];
  if (target.url !== undefined && target.meshOverUrl === true && isTable(mesh)) {
    for (const key of TRANSPORT_KEYS) Reflect.deleteProperty(mesh, key);
    mesh.url = target.url;
    mesh.bearer_token_env_var = MESH_TOKEN_ENV;
  }
  for (const [id, table] of Object.entries(servers)) {
    if (id === RESERVED_SERVER_ID || !isTable(table) || !target.servers.includes(id)) continue;
    for (const key of TRANSPORT_KEYS) Reflect.deleteProperty(table, key);
    if (target.url !== undefined) {
      table.url = target.url;
      table.bearer_token_env_var = tokenEnvName(target.servers.indexOf(id));
      continue;
    }
    const launch = relayLaunch(target, id);
    table.command = launch.command;
    table.args = [...launch.args];
    table.env_vars = [tokenEnvName(target.servers.indexOf(id))];
  }
}

/** The token variable names of a process's servers. */
export function relayTokenNames(target: RelayTarget): string[] {
  return target.servers.map((_, index) => tokenEnvName(index));
}

function excludeTokens(config: TomlTable, names: readonly string[]): void {
  const policy = isTable(config.shell_environment_policy)
    ? config.shell_environment_policy
    : ({} as TomlTable);
  const exclude: unknown[] = Array.isArray(policy.exclude)
    ? [...(policy.exclude as unknown[])]
    : [];
  for (const name of names) if (!exclude.includes(name)) exclude.push(name);
  policy.exclude = exclude;
  config.shell_environment_policy = policy;
}

export function relayHome(rendered: RenderedHome, target: RelayTarget): RenderedHome {
  if (target.servers.length === 0 && target.meshOverUrl !== true) return rendered;
  const files = new Map<string, string>();
  for (const [name, text] of rendered.files) {
    if (name !== 'config.toml' && !(name.startsWith('agents/') && name.endsWith('.toml'))) {
      files.set(name, text);
      continue;
    }
    const table = parse(text) as TomlTable;
    relayServers(table.mcp_servers, target);
    if (name === 'config.toml') excludeTokens(table, relayTokenNames(target));
    files.set(name, stringify(table));
  }
  return { ...rendered, files };
}
