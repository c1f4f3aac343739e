/**
 * Renders one Codex process of a snapshot into Codex's own configuration (docs/design.md §5): the
 * root `config.toml` (base settings, the root role's instructions, model and sandbox, every server
 * of the process with the root's grant, `[agents.N]` declarations) and one `agents/N.toml` per
 * reachable native role restating every server with that role's grant. Pure; TOML via smol-toml.
 */
import { stringify } from 'smol-toml';

import { NEWEST_CODEX } from '../codex/codex-versions.js';
import { withAcceptedKeys } from '../codex/version-keys.js';
import { CodexMmoError } from '../../foundation/errors.js';
import { expandTilde } from '../../foundation/paths/directories.js';
import {
  LIFECYCLE_WAIT_FLOOR_SEC,
  MESH_PROTOCOL_OVERHEAD_SEC,
  type Permissions,
  type ResolvedPlan,
  type ResolvedProcess,
  type RoleSpec,
} from '../profile/types.js';
import { RESERVED_SERVER_ID, referencedEnvVars, type ServerDefinition } from '../registry/types.js';
import type { Snapshot } from '../snapshot/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import {
  featuresWithoutSnapshots,
  sandboxSettings,
  shellEnvironmentPolicy,
  untrustedProjects,
} from './session-boundary.js';
import { SESSION_MARKER_ENV } from '../../foundation/process/session-marker.js';
import { MESH_TOKEN_ENV, type MeshLaunch, type RenderedHome, type RenderOptions } from './types.js';
import { nativeDepth } from './native-depth.js';
import { processGrant, rolesNarrowedOnWire } from './process-grant.js';

/** Codex's approval policy for a directory that is not marked untrusted (measured 0.149, 0.171). */
export const DEFAULT_APPROVAL_POLICY = 'on-request';
/** Marks the session directory in a rendered `mmo_mesh` entry before launch fills it in. */
export const MESH_SESSION_PLACEHOLDER = '<filled-in-at-launch>';
/** Startup timeout of the runtime-owned `mmo_mesh` server (a local Node process). */
export const MESH_STARTUP_TIMEOUT_SEC = 60;
/** Codex sandbox mode for each profile permission level. */
export const SANDBOX_MODES: Readonly<Record<Permissions, string>> = {
  'read-only': 'read-only',
  'workspace-write': 'workspace-write',
  'full-access': 'danger-full-access',
};

/** The clearly marked stand-in `mmo_mesh` command a render shows until launch supplies one. */
export function meshPlaceholder(processRoot: string): MeshLaunch {
  return {
    command: 'codex-mmo',
    args: ['mesh', 'serve', '--session', MESH_SESSION_PLACEHOLDER, '--process', processRoot],
  };
}

/** A role's effective tools on one server: the grant, or undefined when the role lacks one. */
interface RoleGrant {
  readonly enabled_tools: readonly string[];
  readonly required: boolean;
}

function deepCopy(table: TomlTable): TomlTable {
  return JSON.parse(JSON.stringify(table)) as TomlTable;
}

function nonEmpty(record: Readonly<Record<string, unknown>> | undefined): boolean {
  return record !== undefined && Object.keys(record).length > 0;
}

/**
 * One `[mcp_servers.S]` table: the operator's complete definition plus a role's grant.
 * `enabled_tools` is always the operator list; `disabled_tools` is the operator list minus the
 * role's granted tools (all of it when the role has no grant).
 */
export function serverTable(
  definition: ServerDefinition,
  grant: RoleGrant | undefined,
  home: string,
): TomlTable {
  const table: TomlTable = {};
  if (definition.transport === 'stdio') {
    table.command = definition.command.startsWith('~/')
      ? expandTilde(definition.command, home)
      : definition.command;
    if (definition.args !== undefined) table.args = [...definition.args];
    if (nonEmpty(definition.env)) table.env = { ...definition.env };
    if (definition.env_vars !== undefined) table.env_vars = [...definition.env_vars];
    if (definition.cwd !== undefined) table.cwd = expandTilde(definition.cwd, home);
  } else {
    table.url = definition.url;
    if (definition.bearer_token_env_var !== undefined) {
      table.bearer_token_env_var = definition.bearer_token_env_var;
    }
    if (nonEmpty(definition.http_headers)) table.http_headers = { ...definition.http_headers };
    if (nonEmpty(definition.env_http_headers)) {
      table.env_http_headers = { ...definition.env_http_headers };
    }
  }
  const granted = new Set(grant?.enabled_tools ?? []);
  table.enabled = grant !== undefined;
  table.required = grant?.required ?? false;
  table.enabled_tools = [...definition.enabled_tools];
  table.disabled_tools = definition.enabled_tools.filter((tool) => !granted.has(tool));
  table.default_tools_approval_mode = definition.default_tools_approval_mode;
  if (definition.startup_timeout_sec !== undefined) {
    table.startup_timeout_sec = definition.startup_timeout_sec;
  }
  if (definition.tool_timeout_sec !== undefined)
    table.tool_timeout_sec = definition.tool_timeout_sec;
  if (definition.supports_parallel_tool_calls !== undefined) {
    table.supports_parallel_tool_calls = definition.supports_parallel_tool_calls;
  }
  if (nonEmpty(definition.tools)) {
    const tools: TomlTable = {};
    for (const [tool, override] of Object.entries(definition.tools ?? {})) {
      tools[tool] = { approval_mode: override.approval_mode };
    }
    table.tools = tools;
  }
  return table;
}

/** The `mmo_mesh` table for one role of a process that has the mesh. */
function meshTable(launch: MeshLaunch, enabled: boolean, toolTimeoutSec: number): TomlTable {
  return {
    command: launch.command,
    args: [...launch.args],
    env_vars: [MESH_TOKEN_ENV],
    enabled,
    required: enabled,
    default_tools_approval_mode: 'approve',
    startup_timeout_sec: MESH_STARTUP_TIMEOUT_SEC,
    tool_timeout_sec: toolTimeoutSec,
  };
}

function hasMeshGrants(role: RoleSpec): boolean {
  return role.spawn.length > 0 || role.control.length > 0;
}

function processOf(plan: ResolvedPlan, processRoot: string): ResolvedProcess {
  const found = plan.processes.find((p) => p.root === processRoot);
  if (found !== undefined) return found;
  const roots = plan.processes.map((p) => p.root).join(', ');
  const host = plan.processes.find((p) => p.roles.includes(processRoot));
  throw new CodexMmoError(
    'not-found',
    host !== undefined
      ? `role '${processRoot}' of profile '${plan.profile}' is a native role inside the Codex process of '${host.root}', not a process of its own; its role file is part of that process's home (render --process ${host.root}). Processes: ${roots}`
      : plan.roles[processRoot] !== undefined
        ? `role '${processRoot}' of profile '${plan.profile}' never runs as a process: no running role lists it in \`spawn\`. Processes: ${roots}`
        : `profile '${plan.profile}' has no role '${processRoot}'. Processes: ${roots}`,
  );
}

function roleOf(snapshot: Snapshot, name: string): RoleSpec {
  const role = snapshot.profile.agents[name];
  if (role === undefined) {
    throw new CodexMmoError('not-found', `snapshot has no role '${name}'`);
  }
  return role;
}

/**
 * Settings every role carries: instructions, model and sandbox. The sandbox is a filesystem
 * permission profile (session-boundary.ts) whose network switch renders `network_access` for
 * workspace-write; for read-only (never network) and full access (never restricted) it has no
 * Codex equivalent, and pack validation warns about it (`network-access-ignored`) rather than
 * this function dropping it silently.
 */
function roleSettings(role: RoleSpec, options: RenderOptions, into: TomlTable): void {
  if (role.model !== undefined) into.model = role.model;
  into.developer_instructions = role.instructions;
  sandboxSettings(role.permissions, role.network_access, options.boundary?.deny, into);
}

/**
 * The `[mcp_servers]` of one layer of a process: every server of the process with that role's
 * grants, or (`union`) with what any role of the process is granted.
 */
function serversFor(
  snapshot: Snapshot,
  plan: ResolvedPlan,
  process: ResolvedProcess,
  roleName: string,
  options: RenderOptions,
  union = false,
): TomlTable {
  const resolved = plan.roles[roleName];
  const role = roleOf(snapshot, roleName);
  const servers: TomlTable = {};
  for (const id of process.servers) {
    const definition = snapshot.servers[id] ?? plan.servers[id];
    if (definition === undefined) {
      throw new CodexMmoError('not-found', `snapshot has no definition of server '${id}'`);
    }
    const grant = union ? processGrant(plan, process, id) : resolved?.grants[id];
    servers[id] = serverTable(definition, grant, options.home);
  }
  if (process.mesh) {
    const timeouts = process.roles
      .map((name) => plan.roles[name]?.mesh_tool_timeout_sec)
      .filter((t): t is number => typeof t === 'number');
    const own = resolved?.mesh_tool_timeout_sec;
    const timeout =
      typeof own === 'number'
        ? own
        : timeouts.length > 0
          ? Math.max(...timeouts)
          : LIFECYCLE_WAIT_FLOOR_SEC + MESH_PROTOCOL_OVERHEAD_SEC;
    const mesh = union
      ? process.roles.some((name) => hasMeshGrants(roleOf(snapshot, name)))
      : hasMeshGrants(role);
    servers[RESERVED_SERVER_ID] = meshTable(
      options.mesh ?? meshPlaceholder(process.root),
      mesh,
      timeout,
    );
  }
  if (options.sessionMarker !== undefined) {
    for (const table of Object.values(servers) as TomlTable[]) {
      if (typeof table.command !== 'string') continue;
      table.env = {
        ...(table.env as TomlTable | undefined),
        [SESSION_MARKER_ENV]: options.sessionMarker,
      };
    }
  }
  return servers;
}

/**
 * The names the model's shell must never see in this process: every variable its servers
 * reference and the mesh credential (Codex passes every variable to shells by default).
 */
function shellExcludes(snapshot: Snapshot, process: ResolvedProcess): string[] {
  const names = new Set<string>(process.env);
  for (const id of process.servers) {
    const definition = snapshot.servers[id];
    if (definition === undefined) continue;
    for (const name of referencedEnvVars(definition)) names.add(name);
  }
  if (process.mesh) names.add(MESH_TOKEN_ENV);
  return [...names].sort();
}

/** The TOML tables of one process's home, before serialisation: `config.toml` and role files. */
export function renderProcessTables(
  snapshot: Snapshot,
  plan: ResolvedPlan,
  processRoot: string,
  options: RenderOptions,
): { config: TomlTable; roles: ReadonlyMap<string, TomlTable> } {
  const process = processOf(plan, processRoot);
  const root = roleOf(snapshot, process.root);
  const config = deepCopy(snapshot.base);
  roleSettings(root, options, config);
  // Codex gives a native role its process's servers after the process's own narrowing: with the
  // model wire narrowing each role, the process exposes the union of its roles' grants
  const union = options.rolesOnWire ?? rolesNarrowedOnWire(snapshot.base);
  config.mcp_servers = serversFor(snapshot, plan, process, process.root, options, union);
  config.shell_environment_policy = shellEnvironmentPolicy(
    config.shell_environment_policy,
    shellExcludes(snapshot, process),
  );
  config.features = featuresWithoutSnapshots(config.features);
  if (options.boundary !== undefined) {
    config.projects = untrustedProjects(options.boundary.cwd);
    // an untrusted directory would otherwise default to asking for every command not known to
    // be safe; keep Codex's usual default, the sandbox decides what a command may do
    config.approval_policy ??= DEFAULT_APPROVAL_POLICY;
  }
  const natives = process.roles.filter((name) => name !== process.root);
  const roles = new Map<string, TomlTable>();
  if (natives.length > 0) {
    // the operator's multi-agent settings from codex-base.toml (`max_threads`, …) stay beside
    // the role declarations; pack validation keeps role names apart from those setting names
    const agents: TomlTable = { ...(config.agents as TomlTable | undefined) };
    for (const name of natives) {
      const role = roleOf(snapshot, name);
      agents[name] = { description: role.description, config_file: `agents/${name}.toml` };
      const file: TomlTable = { name, description: role.description };
      roleSettings(role, options, file);
      file.mcp_servers = serversFor(snapshot, plan, process, name, options);
      roles.set(name, file);
    }
    // nested native roles are started by their parent native role, which Codex allows only
    // below `max_depth`: the process's nesting depth, unless the operator set one
    const depth = nativeDepth(snapshot.profile, process);
    if (depth > 1 && agents.max_depth === undefined) agents.max_depth = depth;
    config.agents = agents;
  }
  // only what the Codex version rendered for accepts (codex-base.toml may hold newer keys)
  const codex = options.codex ?? NEWEST_CODEX;
  return {
    config: withAcceptedKeys(config, codex),
    roles: new Map([...roles].map(([name, table]) => [name, withAcceptedKeys(table, codex)])),
  };
}

/** Renders the Codex home of the process rooted at `processRoot`. */
export function renderProcess(
  snapshot: Snapshot,
  plan: ResolvedPlan,
  processRoot: string,
  options: RenderOptions,
): RenderedHome {
  const { config, roles } = renderProcessTables(snapshot, plan, processRoot, options);
  const files = new Map<string, string>([['config.toml', stringify(config)]]);
  for (const [name, table] of roles) files.set(`agents/${name}.toml`, stringify(table));
  return { process: processRoot, files };
}

/** Renders every process of the plan, session root first. */
export function renderAll(
  snapshot: Snapshot,
  plan: ResolvedPlan,
  options: RenderOptions,
): RenderedHome[] {
  return plan.processes.map((process) => renderProcess(snapshot, plan, process.root, options));
}
