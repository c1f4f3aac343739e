/**
 * `server-name-collision`: servers of one Codex process whose IDs Codex offers to the model under
 * one name (`a-b` and `a_b`, or a registry `mmo-mesh` beside the runtime's `mmo_mesh`).
 */
import { describe, expect, it } from 'vitest';

import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import { serverNameCollisions } from '../../../src/config/profile/security-notes.js';
import type { ProfileData } from '../../../src/config/profile/types.js';
import { profile, role, servers, stdio } from '../../support/build.js';

const defs = servers(
  stdio('a-b', ['t']),
  stdio('a_b', ['t']),
  stdio('mmo-mesh', ['t']),
  stdio('c', ['t']),
);

function planOf(p: ProfileData) {
  const { plan, diagnostics } = resolvePlan(p, defs);
  expect(diagnostics).toEqual([]);
  return plan!;
}

describe('serverNameCollisions', () => {
  it('reports IDs of one process that differ only in - versus _, on every version', () => {
    const p = profile('lead', [
      role('lead', { native_agents: ['rev'], grants: { 'a-b': {} } }),
      role('rev', { grants: { a_b: {} } }),
    ]);
    for (const facts of CODEX_VERSIONS) {
      const found = serverNameCollisions(p, planOf(p), { file: '/p/profile.toml' }, facts);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({
        severity: 'error',
        code: 'server-name-collision',
        server: 'a-b',
        file: '/p/profile.toml',
        path: 'agents.lead.tool_mcp_servers.a-b',
      });
      expect(found[0]!.message).toContain('`a-b` and `a_b`');
      expect(found[0]!.message).toContain('`mcp__a_b`');
      expect(found[0]!.message).toContain(`Codex ${facts.series}`);
    }
  });

  it("reports a registry mmo-mesh beside the runtime's mmo_mesh", () => {
    const p = profile('lead', [
      role('lead', { spawn: ['helper'], grants: { 'mmo-mesh': {} } }),
      role('helper', { grants: { c: {} } }),
    ]);
    const found = serverNameCollisions(p, planOf(p));
    expect(found.map((d) => d.server)).toEqual(['mmo-mesh']);
    expect(found[0]!.message).toContain('`mmo_mesh` included');
  });

  it('says nothing when the colliding IDs run in different processes', () => {
    const p = profile('lead', [
      role('lead', { spawn: ['helper'], grants: { 'a-b': {} } }),
      role('helper', { grants: { a_b: {} } }),
    ]);
    expect(serverNameCollisions(p, planOf(p))).toEqual([]);
  });
});
