/**
 * What each role of a Codex process may be offered on the model wire (pure): its granted Tool
 * MCP servers with the tools under the names Codex shows the model, whether it keeps `mmo_mesh`
 * (only with `spawn` or `control`) and the roles it may spawn and control through it, the native
 * roles it may start as sub-agents, and the exact `developer_instructions` text codex-mmo
 * rendered for it, by which a sub-agent's requests are recognised.
 */
import type { ProfileData, ResolvedPlan } from '../profile/types.js';
import { RESERVED_SERVER_ID as MESH_SERVER_NAME } from '../registry/types.js';

/** One role's offer on the model wire. */
export interface WireRole {
  readonly role: string;
  /** The rendered `developer_instructions` (the role's instruction text). */
  readonly instructions: string;
  /** Granted server → tool names as the model sees them (`get-sum` → `get_sum`). */
  readonly tools: Readonly<Record<string, readonly string[]>>;
  /** True when the role has `spawn` or `control`: it keeps the `mmo_mesh` tools. */
  readonly mesh: boolean;
  /** The role's own `spawn` and `control` lists (what `mmo_mesh` lets it do). */
  readonly spawn: readonly string[];
  readonly control: readonly string[];
  /** The role's `native_agents`: the only sub-agent roles it may start. */
  readonly native: readonly string[];
}

/** The roles of one process: its root and every native role it reaches. */
export interface WireProcess {
  readonly root: string;
  readonly roles: Readonly<Record<string, WireRole>>;
  /** Every Tool MCP server of the process, plus `mmo_mesh` when present. */
  readonly servers: readonly string[];
}

/** The name Codex gives the model for an MCP tool: characters outside [A-Za-z0-9_] become `_`. */
export function modelSafeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

export function wireRole(profile: ProfileData, plan: ResolvedPlan, role: string): WireRole {
  const spec = profile.agents[role];
  const tools: Record<string, string[]> = {};
  for (const [server, grant] of Object.entries(plan.roles[role]?.grants ?? {})) {
    tools[server] = grant.enabled_tools.map(modelSafeName).sort();
  }
  return {
    role,
    instructions: spec?.instructions ?? '',
    tools,
    mesh: (spec?.spawn.length ?? 0) + (spec?.control.length ?? 0) > 0,
    spawn: [...(spec?.spawn ?? [])],
    control: [...(spec?.control ?? [])],
    native: [...(spec?.native_agents ?? [])],
  };
}

/** The wire view of the process rooted at `root`; undefined when the plan has no such process. */
export function wireProcess(
  profile: ProfileData,
  plan: ResolvedPlan,
  root: string,
): WireProcess | undefined {
  const process = plan.processes.find((p) => p.root === root);
  if (process === undefined) return undefined;
  const roles: Record<string, WireRole> = {};
  for (const role of process.roles) roles[role] = wireRole(profile, plan, role);
  return {
    root,
    roles,
    servers: [...process.servers, ...(process.mesh ? [MESH_SERVER_NAME] : [])],
  };
}

/**
 * Whether `role` can reach the resources of some server of its process at the gateway: Codex
 * sends resource requests without the calling thread, so the gateway admits them only for a
 * server granted to every role of the process — and such a server is granted to `role` too.
 */
export function reachesResources(process: WireProcess, role: WireRole): boolean {
  const roles = Object.values(process.roles);
  return Object.keys(role.tools).some((server) =>
    roles.every((other) => other.tools[server] !== undefined),
  );
}
