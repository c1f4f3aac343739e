/**
 * Grant resolution (docs/design.md §5), pure: a profile and the operator's server definitions in,
 * the resolved plan out — processes with their native-role closures and server unions, per-role
 * effective grants, lifecycle waits, `mmo_mesh` tool timeouts and environment variable names;
 * servers of one process that Codex would offer under one name are an error.
 */
import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import { RESERVED_SERVER_ID, referencedEnvVars, type ServerDefinition } from '../registry/types.js';
import {
  keyLocation,
  type KeyPath,
  type KeyPositions,
} from '../../foundation/toml/key-positions.js';
import {
  CODEX_DEFAULT_STARTUP_TIMEOUT_SEC,
  LIFECYCLE_WAIT_FLOOR_SEC,
  LIFECYCLE_WAIT_MARGIN_SEC,
  MAX_PROCESS_MEMBERSHIPS,
  MESH_PROTOCOL_OVERHEAD_SEC,
  type ProfileData,
  type ResolvedGrant,
  type ResolvedPlan,
  type ResolvedProcess,
  type ResolvedRole,
  type RoleSpec,
} from './types.js';
import { serverNameCollisions } from './server-name-collision.js';

/** Where the profile came from, so grant diagnostics can point at the pack file. */
export interface PlanSource {
  readonly file: string;
  readonly positions?: KeyPositions;
}

export interface ResolveOptions {
  /**
   * Server IDs the registry defines but whose definition is invalid, with the file that defines
   * them; a grant of one is reported as such rather than as an unknown server.
   */
  readonly invalidServers?: ReadonlyMap<string, string>;
  /**
   * Tool names each pinned server offered (from tool-mcp.lock): a granted tool the server offers
   * but the operator's list lacks is then blamed on the operator's list, not on the grant.
   */
  readonly pinnedTools?: ReadonlyMap<string, readonly string[]>;
}

type ServerMap = ReadonlyMap<string, ServerDefinition>;

/**
 * Lifecycle wait of a process rooted at `role`: at least 1200 s, and at least 30 s longer than the
 * largest startup timeout (Codex default 30 s) of the servers granted to that role.
 */
export function lifecycleWaitSec(role: RoleSpec, servers: ServerMap): number {
  let wait = LIFECYCLE_WAIT_FLOOR_SEC;
  for (const server of Object.keys(role.grants)) {
    const definition = servers.get(server);
    if (definition === undefined) continue;
    const startup = definition.startup_timeout_sec ?? CODEX_DEFAULT_STARTUP_TIMEOUT_SEC;
    wait = Math.max(wait, startup + LIFECYCLE_WAIT_MARGIN_SEC);
  }
  return wait;
}

/**
 * `mmo_mesh` tool timeout for `caller`: the largest lifecycle wait over the roles it may spawn or
 * control (each as a process root), plus the protocol overhead; null when it may do neither.
 */
export function meshToolTimeoutSec(
  profile: ProfileData,
  caller: RoleSpec,
  servers: ServerMap,
): number | null {
  const targets = [...new Set([...caller.spawn, ...caller.control])];
  let longest: number | undefined;
  for (const target of targets) {
    const role = profile.agents[target];
    if (role === undefined) continue;
    const wait = lifecycleWaitSec(role, servers);
    longest = longest === undefined ? wait : Math.max(longest, wait);
  }
  return longest === undefined ? null : longest + MESH_PROTOCOL_OVERHEAD_SEC;
}

/** `root` plus every role reachable from it through `native_agents`, in discovery order. */
export function nativeClosure(profile: ProfileData, root: string): string[] {
  const order = [root];
  const seen = new Set(order);
  for (let i = 0; i < order.length; i++) {
    const role = profile.agents[order[i] ?? ''];
    for (const native of role?.native_agents ?? []) {
      if (seen.has(native) || profile.agents[native] === undefined) continue;
      seen.add(native);
      order.push(native);
    }
  }
  return order;
}

/**
 * The Codex processes of a session: the profile root, then every role reachable through `spawn`
 * from any role of any process, each with its native closure. Cycles are followed once. Stops
 * early and returns undefined once the processes hold more than `limit` role memberships.
 */
export function processesOf(
  profile: ProfileData,
  limit: number = Number.POSITIVE_INFINITY,
): { root: string; roles: string[] }[] | undefined {
  if (profile.agents[profile.root] === undefined) return [];
  const roots = [profile.root];
  const seen = new Set(roots);
  const out: { root: string; roles: string[] }[] = [];
  let memberships = 0;
  for (let i = 0; i < roots.length; i++) {
    const root = roots[i] ?? '';
    const roles = nativeClosure(profile, root);
    memberships += roles.length;
    if (memberships > limit) return undefined;
    out.push({ root, roles });
    for (const member of roles) {
      for (const target of profile.agents[member]?.spawn ?? []) {
        if (seen.has(target) || profile.agents[target] === undefined) continue;
        seen.add(target);
        roots.push(target);
      }
    }
  }
  return out;
}

/** The effective grant of one server: the granted subset (operator order) and its complement. */
export function effectiveGrant(
  definition: ServerDefinition,
  granted: readonly string[] | undefined,
  required: boolean,
): ResolvedGrant {
  const operator = definition.enabled_tools;
  const enabled =
    granted === undefined ? [...operator] : operator.filter((t) => granted.includes(t));
  return {
    enabled_tools: enabled,
    disabled_tools: operator.filter((t) => !enabled.includes(t)),
    required,
  };
}

/** Server IDs granted anywhere in the profile, sorted. */
export function grantedServers(profile: ProfileData): string[] {
  const ids = new Set<string>();
  for (const role of Object.values(profile.agents)) {
    for (const server of Object.keys(role.grants)) ids.add(server);
  }
  return [...ids].sort();
}

/**
 * Checks every grant of `profile` against the operator's definitions: a grant of `mmo_mesh`, of
 * a server the registry does not define (or defines invalidly), an empty `enabled_tools`, a tool
 * outside the operator's list. Each diagnostic points at the grant in the pack file and names
 * the registered servers or the operator's tool list. Pure; usable on a partially valid pack.
 */
export function checkGrants(
  profile: ProfileData,
  servers: ServerMap,
  source?: PlanSource,
  options: ResolveOptions = {},
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report = planReporter(diagnostics, source);
  const registered = [...servers.keys()].sort();
  for (const role of Object.values(profile.agents)) {
    for (const grant of Object.values(role.grants)) {
      checkGrant(role, grant.server, grant.enabled_tools);
    }
  }
  return diagnostics;

  function checkGrant(role: RoleSpec, server: string, tools: readonly string[] | undefined): void {
    const grantPath: KeyPath = ['agents', role.name, 'tool_mcp_servers', server];
    if (server === RESERVED_SERVER_ID) {
      report(
        'reserved-server-grant',
        grantPath,
        `role \`${role.name}\` grants \`${RESERVED_SERVER_ID}\`, the runtime-owned Agent MCP server; it cannot be granted — list participant roles in \`spawn\`/\`control\` instead`,
        server,
      );
      return;
    }
    const definition = servers.get(server);
    if (definition === undefined) {
      const invalidIn = options.invalidServers?.get(server);
      if (invalidIn !== undefined) {
        report(
          'invalid-server-grant',
          grantPath,
          `role \`${role.name}\` grants \`${server}\`, whose registry definition in ${invalidIn} has errors; fix them (codex-mmo tool-mcp validate ${server})`,
          server,
        );
        return;
      }
      const guess = suggest(server, registered);
      const hint = guess !== undefined ? ` Did you mean \`${guess}\`?` : '';
      const known =
        registered.length > 0
          ? `Registered servers: ${registered.join(', ')}.`
          : 'The registry defines no servers.';
      report(
        'unknown-server',
        grantPath,
        `role \`${role.name}\` grants \`${server}\`, which the operator registry does not define.${hint} ${known} Servers are defined by the operator in tool-mcp.d/*.toml`,
        server,
      );
      return;
    }
    if (tools === undefined) return;
    const operator = definition.enabled_tools;
    const operatorList = `the operator's enabled_tools for \`${server}\`: ${operator.join(', ')}`;
    if (tools.length === 0) {
      report(
        'empty-enabled-tools',
        [...grantPath, 'enabled_tools'],
        `enabled_tools is empty; choose at least one tool from ${operatorList} — or omit enabled_tools to grant all of them`,
        server,
      );
      return;
    }
    const offered = options.pinnedTools?.get(server);
    tools.forEach((tool, index) => {
      if (operator.includes(tool)) return;
      if (offered?.includes(tool) === true) {
        const strays = operator.filter((t) => !offered.includes(t));
        const cause =
          strays.length > 0
            ? `; that list names ${strays.map((t) => `\`${t}\``).join(', ')}, which the pinned server does not offer, so the operator's registry likely has a typo (codex-mmo tool-mcp validate ${server}). The grant is right: fix enabled_tools in tool-mcp.d`
            : `; the operator decides whether to add it to enabled_tools in tool-mcp.d`;
        report(
          'tool-not-allowed',
          [...grantPath, 'enabled_tools', index],
          `tool \`${tool}\` is offered by \`${server}\` (pinned in tool-mcp.lock) but is outside ${operatorList}${cause}`,
          server,
        );
        return;
      }
      const guess = suggest(tool, operator);
      const hint = guess !== undefined ? ` Did you mean \`${guess}\`?` : '';
      report(
        'tool-not-allowed',
        [...grantPath, 'enabled_tools', index],
        `tool \`${tool}\` is outside ${operatorList}.${hint} A grant can only narrow that list; widening it is the operator's decision`,
        server,
      );
    });
  }
}

/** A `report(code, path, message, server?)` that positions diagnostics in the pack file. */
function planReporter(
  diagnostics: Diagnostic[],
  source: PlanSource | undefined,
): (code: string, path: KeyPath, message: string, server?: string) => void {
  return (code, path, message, server) => {
    diagnostics.push(
      diagnostic({ code, message, ...keyLocation(source?.file, source?.positions, path), server }),
    );
  };
}

/** Checks every grant against the registry and derives the resolved plan. Never throws. */
export function resolvePlan(
  profile: ProfileData,
  servers: ServerMap,
  source?: PlanSource,
  options: ResolveOptions = {},
): { plan: ResolvedPlan | undefined; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const report = planReporter(diagnostics, source);

  if (profile.agents[profile.root] === undefined) {
    report('unknown-role', ['root'], `root role \`${profile.root}\` is not defined in the profile`);
  }
  for (const role of Object.values(profile.agents)) {
    for (const key of ['native_agents', 'spawn', 'control'] as const) {
      role[key].forEach((target, index) => {
        if (profile.agents[target] === undefined) {
          report(
            'unknown-role',
            ['agents', role.name, key, index],
            `\`${key}\` names role \`${target}\`, which the profile does not define`,
          );
        }
      });
    }
  }
  diagnostics.push(...checkGrants(profile, servers, source, options));

  if (hasErrors(diagnostics)) return { plan: undefined, diagnostics };

  const roles: Record<string, ResolvedRole> = {};
  const used = new Set<string>();
  for (const role of Object.values(profile.agents)) {
    const grants: Record<string, ResolvedGrant> = {};
    for (const server of Object.keys(role.grants).sort()) {
      const grant = role.grants[server];
      const definition = servers.get(server);
      if (grant === undefined || definition === undefined) continue;
      grants[server] = effectiveGrant(definition, grant.enabled_tools, grant.required);
      used.add(server);
    }
    roles[role.name] = {
      name: role.name,
      grants,
      lifecycle_wait_sec: lifecycleWaitSec(role, servers),
      mesh_tool_timeout_sec: meshToolTimeoutSec(profile, role, servers),
    };
  }

  const layout = processesOf(profile, MAX_PROCESS_MEMBERSHIPS);
  if (layout === undefined) {
    report(
      'plan-too-large',
      ['root'],
      `the processes of this profile would hold more than ${MAX_PROCESS_MEMBERSHIPS} role memberships (every process holds its root and all roles reachable through native_agents, and every role reachable through spawn roots a process); each membership is a rendered Codex config or role file. Break up cycles in native_agents and spawn, or split the profile`,
    );
    return { plan: undefined, diagnostics };
  }
  const processes: ResolvedProcess[] = layout.map(({ root, roles: members }) => {
    const union = new Set<string>();
    let mesh = false;
    for (const member of members) {
      const role = profile.agents[member];
      if (role === undefined) continue;
      for (const server of Object.keys(role.grants)) union.add(server);
      if (role.spawn.length > 0 || role.control.length > 0) mesh = true;
    }
    const processServers = [...union].sort();
    const env = new Set<string>();
    for (const server of processServers) {
      const definition = servers.get(server);
      if (definition !== undefined) for (const name of referencedEnvVars(definition)) env.add(name);
    }
    return {
      root,
      roles: members,
      servers: processServers,
      lifecycle_wait_sec: roles[root]?.lifecycle_wait_sec ?? LIFECYCLE_WAIT_FLOOR_SEC,
      env: [...env].sort(),
      mesh,
    };
  });

  // servers Codex would offer under one namespace: no role's offer could be narrowed exactly
  diagnostics.push(...serverNameCollisions(profile, processes, source));

  const definitions: Record<string, ServerDefinition> = {};
  for (const server of [...used].sort()) {
    const definition = servers.get(server);
    if (definition !== undefined) definitions[server] = definition;
  }

  return {
    plan: { profile: profile.name, root: profile.root, roles, processes, servers: definitions },
    diagnostics,
  };
}
