/**
 * JSON views of profiles for `profile show` (docs/design.md §7): the profile as written, and the
 * resolved plan in its fixed shape. Pure; neither view contains a credential value, only variable
 * names.
 */
import type { ProfileData, ResolvedGrant, ResolvedPlan, ResolvedProcess } from './types.js';

/** `profile show P --resolved --json` (docs/design.md §7): the plan without server definitions. */
export interface ResolvedPlanJson {
  readonly profile: string;
  readonly root: string;
  readonly roles: Record<
    string,
    {
      readonly grants: Record<string, ResolvedGrant>;
      readonly mesh_tool_timeout_sec: number | null;
      readonly lifecycle_wait_sec: number;
    }
  >;
  readonly processes: readonly ResolvedProcess[];
}

/** `profile show P --resolved --json`. */
export function planToJson(plan: ResolvedPlan): ResolvedPlanJson {
  const roles: ResolvedPlanJson['roles'] = {};
  for (const [name, role] of Object.entries(plan.roles)) {
    const grants: ResolvedPlanJson['roles'][string]['grants'] = {};
    for (const [server, grant] of Object.entries(role.grants)) {
      grants[server] = {
        enabled_tools: [...grant.enabled_tools],
        disabled_tools: [...grant.disabled_tools],
        required: grant.required,
      };
    }
    roles[name] = {
      grants,
      mesh_tool_timeout_sec: role.mesh_tool_timeout_sec,
      lifecycle_wait_sec: role.lifecycle_wait_sec,
    };
  }
  return {
    profile: plan.profile,
    root: plan.root,
    roles,
    processes: plan.processes.map((p) => ({
      root: p.root,
      roles: [...p.roles],
      servers: [...p.servers],
      lifecycle_wait_sec: p.lifecycle_wait_sec,
      env: [...p.env],
      mesh: p.mesh,
    })),
  };
}

/** `profile show P --json`: the profile as written, grants without registry defaults filled in. */
export function profileToJson(
  profile: ProfileData,
  extra: { path?: string } = {},
): Record<string, unknown> {
  const agents: Record<string, unknown> = {};
  for (const [name, role] of Object.entries(profile.agents)) {
    const grants: Record<string, unknown> = {};
    for (const [server, grant] of Object.entries(role.grants)) {
      grants[server] = {
        required: grant.required,
        ...(grant.enabled_tools !== undefined ? { enabled_tools: [...grant.enabled_tools] } : {}),
      };
    }
    agents[name] = {
      description: role.description,
      ...(role.instructions_file !== undefined
        ? { instructions_file: role.instructions_file }
        : {}),
      instructions: role.instructions,
      ...(role.model !== undefined ? { model: role.model } : {}),
      permissions: role.permissions,
      network_access: role.network_access,
      native_agents: [...role.native_agents],
      spawn: [...role.spawn],
      control: [...role.control],
      tool_mcp_servers: grants,
    };
  }
  return {
    schema_version: profile.schema_version,
    name: profile.name,
    ...(profile.description !== undefined ? { description: profile.description } : {}),
    root: profile.root,
    ...(extra.path !== undefined ? { path: extra.path } : {}),
    agents,
    ...(profile.budget !== undefined ? { budget: { ...profile.budget } } : {}),
  };
}
