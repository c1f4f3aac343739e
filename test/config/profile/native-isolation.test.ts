/**
 * What doctor says about native roles (every supported Codex gives them their parent's tools and shares the
 * process environment) and about the security boundary of sandbox settings.
 */
import { describe, expect, it } from 'vitest';

import {
  nativeIsolationDiagnostics,
  nativeRoleDeltas,
} from '../../../src/config/profile/native-isolation.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import { securityNotes } from '../../../src/config/profile/security-notes.js';
import type { ProfileData } from '../../../src/config/profile/types.js';
import { scanKeyPositions } from '../../../src/foundation/toml/key-positions.js';
import { http, profile, role, servers, stdio } from '../../support/build.js';

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
    expect(nativeRoleDeltas(p, planOf(p))).toEqual([
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

  it('warns native-role-not-isolated with GAIN and LOSE, the Codex fact and the fix', () => {
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
    // the newest supported version by default
    expect(warning!.message).toContain('Codex 0.171 gives a native role its parent');
    expect(warning!.message).toContain('GAIN ida:list_functions, ida:decompile, ida:rename');
    expect(warning!.message).toContain('LOSE web:fetch');
    expect(warning!.message).toContain('participant role');
    expect(warning!.message).toContain('mmo_mesh');
    const env = diagnostics.find((d) => d.code === 'native-role-shares-environment');
    expect(env).toMatchObject({ severity: 'info' });
    expect(env!.message).toContain('WEB_KEY');
    expect(env!.message).toContain('no Codex process, root or native, receives them');
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
      role('a', { native_agents: ['b'], spawn: ['w'], grants: { notes: {} } }),
      role('b', { grants: {} }),
      role('w', { grants: { ida: {} } }),
    ]);
    const diagnostics = nativeIsolationDiagnostics(p, planOf(p)).filter(
      (d) => d.code === 'native-role-not-isolated',
    );
    // `a` matches the root in tools and in spawn; `b` differs; participant `w` is not compared
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]!.path).toBe('agents.a.native_agents[0]');
    expect(diagnostics[0]!.message).toContain('`b`');
    expect(diagnostics[0]!.message).toContain('GAIN notes:read_note');
    expect(diagnostics[0]!.message).toContain(
      "GAIN mmo_mesh with `lead`'s participant grants (spawn w; control none)",
    );
  });
});

describe('native roles and mmo_mesh', () => {
  // the process's mmo_mesh server acts for the process root: a native role reaches exactly the
  // root's spawn/control lists, whatever its own say (measured in test/config/compile/codex-exec)
  const team = (rootLists: { spawn?: string[]; control?: string[] }, own: typeof rootLists) =>
    profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { notes: {} }, ...rootLists }),
      role('rev', { grants: { notes: {} }, ...own }),
      role('w', {}),
      role('x', {}),
    ]);

  it('a native role without spawn/control gains the root’s mesh reach', () => {
    const p = team({ spawn: ['w'], control: ['w'] }, {});
    const [delta] = nativeRoleDeltas(p, planOf(p));
    expect(delta!.mesh).toEqual({
      effective: { spawn: ['w'], control: ['w'] },
      own: { spawn: [], control: [] },
    });
    const [warning] = nativeIsolationDiagnostics(p, planOf(p));
    expect(warning).toMatchObject({ code: 'native-role-not-isolated', severity: 'warning' });
    expect(warning!.message).toContain(
      "it will GAIN mmo_mesh with `lead`'s participant grants (spawn w; control w)",
    );
  });

  it('a native role with its own spawn/control loses them when the root has none', () => {
    const p = team({}, { spawn: ['w'] });
    const [delta] = nativeRoleDeltas(p, planOf(p));
    expect(delta!.mesh).toEqual({ effective: null, own: { spawn: ['w'], control: [] } });
    const [warning] = nativeIsolationDiagnostics(p, planOf(p));
    expect(warning!.message).toContain(
      'it will LOSE mmo_mesh: its own participant grants (spawn w; control none) cannot be used, because `lead` has neither spawn nor control',
    );
  });

  it('a native role with different lists acts with the root’s', () => {
    const p = team({ spawn: ['w'] }, { spawn: ['x'], control: ['x'] });
    const [warning] = nativeIsolationDiagnostics(p, planOf(p));
    expect(warning!.message).toContain(
      "through mmo_mesh it acts with `lead`'s participant grants (spawn w; control none), not its own (spawn x; control x)",
    );
  });

  it('says nothing when the lists are the same, in any order', () => {
    const p = team({ spawn: ['w', 'x'] }, { spawn: ['x', 'w'] });
    expect(nativeRoleDeltas(p, planOf(p))[0]!.mesh).toBeUndefined();
    expect(nativeIsolationDiagnostics(p, planOf(p))).toEqual([]);
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
  it('says whether the pack sets network_access = false or leaves the default', () => {
    const p = profile('lead', [role('lead', { grants: { web: {} } })]);
    const noteFor = (toml: string) =>
      securityNotes(p, planOf(p), {
        file: 'profile.toml',
        positions: scanKeyPositions(toml),
      }).find((d) => d.code === 'network-access-not-mcp');
    const byDefault = noteFor('[agents.lead]\ndescription = "Lead"\n');
    expect(byDefault!.message).toContain(
      'role `lead` has no shell network access (network_access is false by default)',
    );
    expect(byDefault!.message).not.toContain('sets network_access');
    const set = noteFor('[agents.lead]\ndescription = "Lead"\nnetwork_access = false\n');
    expect(set!.message).toContain('role `lead` sets network_access = false');
    expect(set).toMatchObject({ file: 'profile.toml', line: expect.any(Number) as number });
  });
  it('has nothing to say to a workspace-write role with network access', () => {
    const p = profile('lead', [
      role('lead', { permissions: 'workspace-write', network_access: true, grants: { web: {} } }),
    ]);
    expect(securityNotes(p, planOf(p))).toEqual([]);
  });
});
