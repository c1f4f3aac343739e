/**
 * A small in-memory profile, registry and snapshot for pure session tests: a lead (root) with a
 * required stdio grant and a native reviewer, and a researcher participant with an optional HTTP
 * grant, built through the real resolvePlan and buildSnapshot; and a stored session record of it
 * whose processes are long gone.
 */
import { resolvePlan } from '../../src/config/profile/resolve-plan.js';
import type { ProfileData, ResolvedPlan } from '../../src/config/profile/types.js';
import type { ServerDefinition } from '../../src/config/registry/types.js';
import { SESSION_FORMAT, type SessionRecord } from '../../src/runtime/session/session-record.js';
import { role } from './build.js';
import { buildSnapshot, snapshotId } from '../../src/config/snapshot/build-snapshot.js';
import type { StoredSnapshot } from '../../src/config/snapshot/types.js';

export const PROFILE: ProfileData = {
  schema_version: 8,
  name: 'team',
  root: 'lead',
  agents: {
    lead: role('lead', {
      native_agents: ['reviewer'],
      spawn: ['researcher'],
      control: ['researcher'],
      grants: { ida: { required: true } },
    }),
    reviewer: role('reviewer', { grants: { notes: { required: false } } }),
    researcher: role('researcher', {
      grants: { web: { required: false, enabled_tools: ['search'] } },
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

/** A pid no process has. */
export const DEAD_PID = 999_999_999;

/**
 * A session record of the profile as `session.json` holds it: recorded as running, with a root
 * process and a failed participant, and a supervisor (`DEAD_PID`) that is gone.
 */
export function sessionRecord(id: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    format: SESSION_FORMAT,
    id,
    profile: 'team',
    snapshot: 'sha256:0123456789abcdef',
    mode: 'exec',
    cwd: '/work',
    started: '2026-01-01T00:00:00.000Z',
    status: 'running',
    pid: DEAD_PID,
    mesh_socket: '/tmp/x.sock',
    processes: [
      {
        id: 'root',
        role: 'lead',
        kind: 'root',
        home: '/s/homes/root',
        cwd: '/work',
        status: 'running',
        started: 's',
        pid: DEAD_PID,
      },
      {
        id: 'researcher-1',
        role: 'researcher',
        kind: 'participant',
        owner: 'root',
        home: '/s/homes/researcher-1',
        cwd: '/work',
        status: 'failed',
        started: 's',
        error: 'codex app-server of participant researcher-1 exited unexpectedly (code 1)',
      },
    ],
    ...extra,
  };
}
