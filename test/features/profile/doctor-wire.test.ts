/**
 * What doctor says about native roles once the model wire can narrow them: the warning keeps
 * only what the wire cannot do, and stays whole, with the reason, where the wire cannot front
 * the provider or the Codex version was not measured.
 */
import { describe, expect, it } from 'vitest';

import { wireEnforcement } from '../../../src/runtime/model-wire/enforcement.js';
import { nativeIsolationDiagnostics } from '../../../src/config/profile/native-isolation.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import type { ProfileData } from '../../../src/config/profile/types.js';
import { profile, role, servers, stdio } from '../../support/build.js';

const defs = servers(stdio('ida', ['list_functions', 'decompile']), stdio('web', ['search']));

function warningsOf(p: ProfileData, wire: ReturnType<typeof wireEnforcement>): string[] {
  const { plan } = resolvePlan(p, defs);
  return nativeIsolationDiagnostics(p, plan!, undefined, undefined, wire)
    .filter((d) => d.code === 'native-role-not-isolated')
    .map((d) => d.message);
}

const subset = profile('lead', [
  role('lead', { native_agents: ['rev'], control: ['helper'], grants: { ida: {} } }),
  role('rev', { grants: { ida: { enabled_tools: ['list_functions'] } } }),
  role('helper', {}),
]);

describe('wireEnforcement', () => {
  it('narrows for a frontable provider on a measured Codex series', () => {
    expect(wireEnforcement({}, '0.171.0')).toEqual({ narrows: true });
    expect(wireEnforcement({}, '0.149.1')).toEqual({ narrows: true });
  });

  it('says why not for an unfrontable provider, an untested version or no Codex', () => {
    expect(wireEnforcement({ model_provider: 'ollama' }, '0.171.0')).toMatchObject({
      narrows: false,
      reason: expect.stringContaining('cannot front the provider') as string,
    });
    expect(wireEnforcement({}, '0.180.0')).toEqual({
      narrows: false,
      reason: 'the model wire was measured on Codex 0.149.x, 0.171.x only, not on 0.180.0',
    });
    expect(wireEnforcement({}, undefined)).toMatchObject({ narrows: false });
  });
});

describe('native-role-not-isolated with the model wire', () => {
  it('says nothing for a role narrower than its root: the wire narrows, the gateway refuses by thread', () => {
    // the wire removes ida:decompile and strips the mesh from a role without spawn/control; the
    // gateway refuses the role's call of ida:decompile (test/runtime/gateway/native-gateway.test.ts)
    expect(warningsOf(subset, { narrows: true })).toEqual([]);
  });

  it('says nothing for a role granted exactly like its root', () => {
    const same = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { ida: {} } }),
      role('rev', { grants: { ida: {} } }),
    ]);
    expect(warningsOf(same, { narrows: true })).toEqual([]);
  });

  it('says nothing for servers the root lacks: the process enables every role grant', () => {
    const wider = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { ida: {} } }),
      role('rev', { grants: { ida: {}, web: {} } }),
    ]);
    expect(warningsOf(wider, { narrows: true })).toEqual([]);
    const [whole] = warningsOf(wider, { narrows: false, reason: 'WHY-NOT' });
    expect(whole).toContain('it will LOSE web:search');
  });

  it('still reports a server the process requires that the role does not', () => {
    const required = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { ida: { required: true } } }),
      role('rev', { grants: { ida: { required: false } } }),
    ]);
    const [message] = warningsOf(required, { narrows: true });
    expect(message).toContain('`required` of ida follows the process');
  });

  it('says nothing for a role with its own mesh lists: the broker checks calls by thread', () => {
    // test/runtime/model-wire/native-mesh.test.ts measures the broker acting with the role's own lists
    const ownLists = profile('lead', [
      role('lead', { native_agents: ['rev'], spawn: ['helper'], grants: { ida: {} } }),
      role('rev', { spawn: ['worker'], control: ['worker'], grants: { ida: {} } }),
      role('helper', {}),
      role('worker', {}),
    ]);
    expect(warningsOf(ownLists, { narrows: true })).toEqual([]);
    const [whole] = warningsOf(ownLists, { narrows: false, reason: 'WHY-NOT' });
    expect(whole).toContain("acts with `lead`'s participant grants");
  });

  it('says nothing for mesh lists of a role whose root has none: the process enables mmo_mesh', () => {
    const rootless = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { ida: {} } }),
      role('rev', { spawn: ['worker'], grants: { ida: {} } }),
      role('worker', {}),
    ]);
    expect(warningsOf(rootless, { narrows: true })).toEqual([]);
  });

  it('keeps the whole warning, with the reason, where the wire cannot narrow', () => {
    const [message] = warningsOf(subset, { narrows: false, reason: 'WHY-NOT' });
    expect(message).toContain('(WHY-NOT)');
    expect(message).toContain('it will GAIN ida:decompile');
    expect(message).toContain('GAIN mmo_mesh');
  });
});
