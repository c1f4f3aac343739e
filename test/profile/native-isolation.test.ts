/**
 * What doctor says about native roles (Codex 0.149 gives them their parent's tools and shares the
 * process environment) and about the security boundary of sandbox settings.
 */
import { describe, expect, it } from 'vitest';

import {
  nativeIsolationDiagnostics,
  nativeRoleDeltas,
} from '../../src/profile/native-isolation.js';
import { resolvePlan } from '../../src/profile/resolve-plan.js';
import { securityNotes } from '../../src/profile/security-notes.js';
import type { ProfileData } from '../../src/profile/types.js';
import { http, profile, role, servers, stdio } from './build.js';

const defs = servers(
  stdio('ida', ['list_functions', 'decompile', 'rename'], { env_vars: ['IDA_TOKEN'] }),
  http('web', ['search', 'fetch'], {
    bearer_token_env_var: 'WEB_KEY',
    default_tools_approval_mode: 'approve',
  }),
  stdio('notes', ['read_note'], {
    default_tools_approval_mode: 'writes',
    tools: { read_note: { approval_mode: 'approve' } },
  }),
);

function planOf(p: ProfileData) {
  const { plan, diagnostics } = resolvePlan(p, defs);
  expect(diagnostics).toEqual([]);
  return plan!;
}

describe('native role deltas', () => {
  it('lists the tools a native role gains from and loses to its process root', () => {
    const p = profile('lead', [
      role('lead', {
        native_agents: ['rev'],
        grants: { ida: { enabled_tools: ['list_functions', 'decompile'] } },
      }),
      role('rev', {
        grants: {
          ida: { enabled_tools: ['list_functions', 'rename'], required: false },
          web: { enabled_tools: ['search'] },
        },
      }),
    ]);
    expect(nativeRoleDeltas(planOf(p))).toEqual([
      {
        process: 'lead',
        role: 'rev',
        gains: [{ server: 'ida', tools: ['decompile'] }],
        loses: [
          { server: 'ida', tools: ['rename'] },
          { server: 'web', tools: ['search'] },
        ],
        requiredDiffers: ['ida'],
        env: ['IDA_TOKEN', 'WEB_KEY'],
        envBeyondRoot: ['WEB_KEY'],
      },
    ]);
  });

  it('warns native-role-not-isolated with GAIN and LOSE, the Codex 0.149 fact and the fix', () => {
    const p = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { ida: {} } }),
      role('rev', { grants: { web: { enabled_tools: ['fetch'] } } }),
    ]);
    const diagnostics = nativeIsolationDiagnostics(p, planOf(p), { file: '/p/profile.toml' });
    const warning = diagnostics.find((d) => d.code === 'native-role-not-isolated');
    expect(warning).toMatchObject({
      severity: 'warning',
      file: '/p/profile.toml',
      path: 'agents.lead.native_agents[0]',
    });
    expect(warning!.message).toContain('Codex 0.149 gives a native role its parent');
    expect(warning!.message).toContain('GAIN ida:list_functions, ida:decompile, ida:rename');
    expect(warning!.message).toContain('LOSE web:fetch');
    expect(warning!.message).toContain('participant role');
    expect(warning!.message).toContain('mmo_mesh');
    const env = diagnostics.find((d) => d.code === 'native-role-shares-environment');
    expect(env).toMatchObject({ severity: 'warning' });
    expect(env!.message).toContain('WEB_KEY');
  });

  it('says nothing about a native role whose grants equal its root’s and that uses no credentials', () => {
    const p = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { notes: {} } }),
      role('rev', { grants: { notes: { enabled_tools: ['read_note'] } } }),
    ]);
    expect(nativeIsolationDiagnostics(p, planOf(p))).toEqual([]);
  });

  it('notes the shared environment as info when the root uses the same credentials', () => {
    const p = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { ida: {} } }),
      role('rev', { grants: { ida: {} } }),
    ]);
    const diagnostics = nativeIsolationDiagnostics(p, planOf(p));
    expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['native-role-shares-environment', 'info'],
    ]);
  });

  it('compares nested native roles with the process root and ignores participants', () => {
    const p = profile('lead', [
      role('lead', { native_agents: ['a'], spawn: ['w'], grants: { notes: {} } }),
      role('a', { native_agents: ['b'], grants: { notes: {} } }),
      role('b', { grants: {} }),
      role('w', { grants: { ida: {} } }),
    ]);
    const diagnostics = nativeIsolationDiagnostics(p, planOf(p)).filter(
      (d) => d.code === 'native-role-not-isolated',
    );
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.path).toBe('agents.a.native_agents[0]');
    expect(diagnostics[0]!.message).toContain('`b`');
    expect(diagnostics[0]!.message).toContain('GAIN notes:read_note');
  });
});

describe('security notes', () => {
  it('tells a read-only role that approve-mode tools are not constrained by permissions', () => {
    const p = profile('lead', [role('lead', { grants: { web: {}, notes: {}, ida: {} } })]);
    const notes = securityNotes(p, planOf(p));
    const unapproved = notes.find((d) => d.code === 'unapproved-mcp-tools');
    expect(unapproved).toMatchObject({ severity: 'info' });
    expect(unapproved!.message).toContain('notes:read_note, web:search, web:fetch');
    expect(unapproved!.message).not.toContain('ida:');
    const network = notes.find((d) => d.code === 'network-access-not-mcp');
    expect(network!.message).toContain('web');
  });
  it('has nothing to say to a workspace-write role with network access', () => {
    const p = profile('lead', [
      role('lead', { permissions: 'workspace-write', network_access: true, grants: { web: {} } }),
    ]);
    expect(securityNotes(p, planOf(p))).toEqual([]);
  });
});
