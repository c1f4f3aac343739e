/**
 * A small in-memory profile, registry and snapshot for pure session tests: a lead (root) with a
 * required stdio grant and a native reviewer, and a researcher participant with an optional HTTP
 * grant. Built through the real resolvePlan and buildSnapshot.
 */
import { resolvePlan } from '../../src/profile/resolve-plan.js';
import type { ProfileData, ResolvedPlan, RoleSpec } from '../../src/profile/types.js';
import type { ServerDefinition } from '../../src/registry/types.js';
import { buildSnapshot, snapshotId } from '../../src/snapshot/build-snapshot.js';
import type { StoredSnapshot } from '../../src/snapshot/types.js';

function role(name: string, extra: Partial<RoleSpec> = {}): RoleSpec {
  return {
    name,
    description: `${name} role`,
    instructions: `You are ${name}.`,
    permissions: 'read-only',
    network_access: false,
    native_agents: [],
    spawn: [],
    control: [],
    grants: {},
    ...extra,
  };
}

export const PROFILE: ProfileData = {
  schema_version: 8,
  name: 'team',
  root: 'lead',
  agents: {
    lead: role('lead', {
      native_agents: ['reviewer'],
      spawn: ['researcher'],
      control: ['researcher'],
      grants: { ida: { server: 'ida', required: true } },
    }),
    reviewer: role('reviewer', { grants: { notes: { server: 'notes', required: false } } }),
    researcher: role('researcher', {
      grants: { web: { server: 'web', required: false, enabled_tools: ['search'] } },
    }),
  },
};

export const SERVERS = new Map<string, ServerDefinition>([
  [
    'ida',
    {
      id: 'ida',
      transport: 'stdio',
      command: 'ida-pro-mcp',
      env_vars: ['IDA_MCP_TOKEN'],
      enabled_tools: ['decompile'],
      default_tools_approval_mode: 'writes',
    },
  ],
  [
    'notes',
    {
      id: 'notes',
      transport: 'stdio',
      command: 'notes-mcp',
      env_vars: ['NOTES_TOKEN'],
      enabled_tools: ['write'],
      default_tools_approval_mode: 'prompt',
    },
  ],
  [
    'web',
    {
      id: 'web',
      transport: 'streamable_http',
      url: 'https://mcp.example.invalid/',
      bearer_token_env_var: 'WEB_API_KEY',
      env_http_headers: { 'X-Workspace': 'WEB_WORKSPACE' },
      enabled_tools: ['search', 'scrape'],
      default_tools_approval_mode: 'writes',
    },
  ],
]);

export function fixture(
  base: Record<string, unknown> = {},
  profile: ProfileData = PROFILE,
): { stored: StoredSnapshot; plan: ResolvedPlan } {
  const { plan, diagnostics } = resolvePlan(profile, SERVERS);
  if (plan === undefined) throw new Error(JSON.stringify(diagnostics));
  const snapshot = buildSnapshot(profile, SERVERS, base, {});
  return { stored: { id: snapshotId(snapshot), dir: '/data/snapshots/x', snapshot }, plan };
}
