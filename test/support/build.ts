/**
 * Builders for profile tests: roles, profiles and server definitions written by hand, so that
 * resolution can be tested without the registry loader.
 */
import type { GrantSpec, ProfileData, RoleSpec } from '../../src/config/profile/types.js';
import type { HttpDefinition, StdioDefinition } from '../../src/config/registry/types.js';

export function role(
  name: string,
  options: Partial<Omit<RoleSpec, 'name' | 'grants'>> & {
    grants?: Record<string, { required?: boolean; enabled_tools?: string[] }>;
  } = {},
): RoleSpec {
  const grants: Record<string, GrantSpec> = {};
  for (const [server, g] of Object.entries(options.grants ?? {})) {
    grants[server] = {
      server,
      required: g.required ?? true,
      ...(g.enabled_tools !== undefined ? { enabled_tools: g.enabled_tools } : {}),
    };
  }
  const rest: Record<string, unknown> = { ...options };
  delete rest.grants;
  return {
    description: `${name} role`,
    instructions: `You are ${name}.`,
    permissions: 'read-only',
    network_access: false,
    native_agents: [],
    spawn: [],
    control: [],
    ...rest,
    name,
    grants,
  };
}

export function profile(root: string, roles: RoleSpec[], name = 'test'): ProfileData {
  return {
    schema_version: 8,
    name,
    root,
    agents: Object.fromEntries(roles.map((r) => [r.name, r])),
  };
}

export function stdio(
  id: string,
  tools: string[],
  extra: Partial<Omit<StdioDefinition, 'id' | 'transport' | 'enabled_tools'>> = {},
): StdioDefinition {
  return {
    id,
    transport: 'stdio',
    command: `${id}-mcp`,
    enabled_tools: tools,
    default_tools_approval_mode: 'prompt',
    ...extra,
  };
}

export function http(
  id: string,
  tools: string[],
  extra: Partial<Omit<HttpDefinition, 'id' | 'transport' | 'enabled_tools'>> = {},
): HttpDefinition {
  return {
    id,
    transport: 'streamable_http',
    url: `https://${id}.example.invalid/mcp`,
    enabled_tools: tools,
    default_tools_approval_mode: 'prompt',
    ...extra,
  };
}

export function servers(
  ...defs: (StdioDefinition | HttpDefinition)[]
): Map<string, StdioDefinition | HttpDefinition> {
  return new Map(defs.map((d) => [d.id, d]));
}
