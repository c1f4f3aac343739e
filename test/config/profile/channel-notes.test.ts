/**
 * `approval-channel-unprotected`: every full-access role a session runs (a process root or a
 * native role, a participant role too) is named, at its `permissions` key; sandboxed roles and
 * roles no session runs are not.
 */
import { describe, expect, it } from 'vitest';

import { unprotectedChannels } from '../../../src/config/profile/channel-notes.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import { securityNotes } from '../../../src/config/profile/security-notes.js';
import { profile, role, servers, stdio } from '../../support/build.js';

const defs = servers(stdio('c', ['t']));

describe('unprotectedChannels', () => {
  it('names each full-access role a session runs, and only those', () => {
    const p = profile('lead', [
      role('lead', { spawn: ['helper'], native_agents: ['rev'], grants: { c: {} } }),
      role('rev', { permissions: 'full-access' }),
      role('helper', { permissions: 'full-access', network_access: true }),
      role('safe', { permissions: 'workspace-write', network_access: true }),
      role('unused', { permissions: 'full-access' }),
    ]);
    const { plan } = resolvePlan(p, defs);
    const found = unprotectedChannels(p, plan!, { file: '/p/profile.toml' });
    expect(found.map((d) => [d.severity, d.code, d.path])).toEqual([
      ['warning', 'approval-channel-unprotected', 'agents.rev.permissions'],
      ['warning', 'approval-channel-unprotected', 'agents.helper.permissions'],
    ]);
    expect(found[0]!.message).toContain('role `rev`');
    expect(found[0]!.message).toContain('approval key');
    // doctor reports it among the security notes
    const notes = securityNotes(p, plan!);
    expect(notes.filter((d) => d.code === 'approval-channel-unprotected')).toHaveLength(2);
  });

  it('says nothing for sandboxed roles', () => {
    const p = profile('lead', [
      role('lead', { permissions: 'workspace-write', grants: { c: {} } }),
    ]);
    const { plan } = resolvePlan(p, defs);
    expect(unprotectedChannels(p, plan!)).toEqual([]);
  });
});
