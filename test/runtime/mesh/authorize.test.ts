/**
 * The mesh grant check: spawn needs the target role in the caller's `spawn` list; send, wait and
 * stop need it in the caller's `control` list — having spawned a participant grants nothing more.
 */
import { describe, expect, it } from 'vitest';

import { authorize, visibleRoles } from '../../../src/runtime/mesh/authorize.js';
import { PROFILE } from '../../support/plan-fixture.js';

const spawnOnly = {
  ...PROFILE,
  agents: { ...PROFILE.agents, lead: { ...PROFILE.agents.lead!, control: [] } },
};

describe('authorize', () => {
  it('allows exactly the granted roles', () => {
    expect(authorize(PROFILE, 'lead', 'spawn', 'researcher')).toEqual({ ok: true });
    for (const action of ['send', 'wait', 'stop'] as const) {
      expect(authorize(PROFILE, 'lead', action, 'researcher')).toEqual({ ok: true });
    }
  });

  it('refuses with a message naming the caller, the target and the grant', () => {
    expect(authorize(PROFILE, 'lead', 'spawn', 'reviewer')).toEqual({
      ok: false,
      message: "role 'lead' may not spawn role 'reviewer': its spawn grant allows researcher",
    });
    expect(authorize(PROFILE, 'researcher', 'spawn', 'lead')).toEqual({
      ok: false,
      message: "role 'researcher' may not spawn role 'lead': its spawn grant allows none",
    });
    expect(authorize(PROFILE, 'lead', 'spawn', 'ghost')).toEqual({
      ok: false,
      message: "role 'lead' may not spawn unknown role 'ghost': its spawn grant allows researcher",
    });
    expect(authorize(PROFILE, 'nobody', 'wait', 'researcher')).toEqual({
      ok: false,
      message: "caller role 'nobody' is not part of profile 'team'",
    });
  });

  it('does not let spawning stand in for control', () => {
    expect(authorize(spawnOnly, 'lead', 'spawn', 'researcher').ok).toBe(true);
    expect(authorize(spawnOnly, 'lead', 'wait', 'researcher')).toEqual({
      ok: false,
      message: "role 'lead' may not wait on role 'researcher': its control grant allows none",
    });
    expect(authorize(spawnOnly, 'lead', 'send', 'researcher').ok).toBe(false);
    expect(authorize(spawnOnly, 'lead', 'stop', 'researcher').ok).toBe(false);
  });

  it('counts only the roles of the profile, never properties every object has', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(authorize(PROFILE, name, 'spawn', 'researcher')).toEqual({
        ok: false,
        message: `caller role '${name}' is not part of profile 'team'`,
      });
      expect(authorize(PROFILE, 'lead', 'stop', name).ok).toBe(false);
      expect([...visibleRoles(PROFILE, name)]).toEqual([]);
    }
  });

  it('lists the control grant as the visible roles', () => {
    expect([...visibleRoles(PROFILE, 'lead')]).toEqual(['researcher']);
    expect([...visibleRoles(PROFILE, 'ghost')]).toEqual([]);
  });
});
