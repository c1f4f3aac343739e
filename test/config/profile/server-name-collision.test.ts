/**
 * `server-name-collision`: servers of one Codex process whose IDs Codex offers to the model under
 * one name (`a-b` and `a_b`, or a registry `mmo-mesh` beside the runtime's `mmo_mesh`) are an
 * error of resolving the plan, so no snapshot of such a profile is compiled.
 */
import { describe, expect, it } from 'vitest';

import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import { serverNameCollisions } from '../../../src/config/profile/server-name-collision.js';
import type { ProfileData } from '../../../src/config/profile/types.js';
import { profile, role, servers, stdio } from '../../support/build.js';

const defs = servers(
  stdio('a-b', ['t']),
  stdio('a_b', ['t']),
  stdio('mmo-mesh', ['t']),
  stdio('c', ['t']),
  stdio('c--d', ['t']),
  stdio('c_-d', ['t']),
  stdio('a__', ['t']),
  stdio('a', ['t']),
);

const resolve = (p: ProfileData) => resolvePlan(p, defs, { file: '/p/profile.toml' });

describe('server-name-collision', () => {
  it('refuses IDs of one process that differ only in - versus _, naming both and the fix', () => {
    const p = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { 'a-b': {} } }),
      role('rev', { grants: { a_b: {} } }),
    ]);
    const { diagnostics } = resolve(p);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      severity: 'error',
      code: 'server-name-collision',
      server: 'a-b',
      file: '/p/profile.toml',
      path: 'agents.lead.tool_mcp_servers.a-b',
    });
    const message = diagnostics[0]!.message;
    expect(message).toContain('`a-b` and `a_b`');
    expect(message).toContain('`mcp__a_b`');
    expect(message).toContain('rename one of them');
    // every supported version offers both under one name
    for (const facts of CODEX_VERSIONS) expect(message).toContain(facts.series);
  });

  it('reports each group once, whatever number of versions it collides on', () => {
    const p = profile('lead', [role('lead', { grants: { c: {}, 'c--d': {}, 'c_-d': {} } })]);
    const found = serverNameCollisions(p, resolve(p).plan!.processes, undefined, CODEX_VERSIONS);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('servers `c--d` and `c_-d`');
    expect(found[0]!.message).toContain('`mcp__c__d`');
  });

  it("refuses a registry mmo-mesh beside the runtime's mmo_mesh", () => {
    const p = profile('lead', [
      role('lead', { spawn: ['helper'], grants: { 'mmo-mesh': {} } }),
      role('helper', { grants: { c: {} } }),
    ]);
    const found = resolve(p).diagnostics;
    expect(found.map((d) => `${d.code}:${d.server}`)).toEqual(['server-name-collision:mmo-mesh']);
    expect(found[0]!.message).toContain('`mmo_mesh` included');
    expect(found[0]!.message).toContain('rename `mmo-mesh`');
  });

  it('says nothing when the colliding IDs run in different processes', () => {
    const p = profile('lead', [
      role('lead', { spawn: ['helper'], grants: { 'a-b': {} } }),
      role('helper', { grants: { a_b: {} } }),
    ]);
    expect(resolve(p).diagnostics).toEqual([]);
  });

  it('says nothing for IDs whose namespaces only share a prefix (a and a__)', () => {
    const p = profile('lead', [role('lead', { grants: { a: {}, a__: {}, 'a-b': {} } })]);
    expect(resolve(p).diagnostics).toEqual([]);
  });
});
