/**
 * `profile smoke` through the model wire, with real Codex: every native role, nested ones
 * included (started by the native role that lists it), is offered exactly its grants — a subset
 * of its process root's — and `mmo_mesh` only with spawn/control of its own, so the received
 * column equals the granted one and nothing is warned.
 */
import { describe, expect, it } from 'vitest';

import { MESH_TOOL_NAMES } from '../../../src/runtime/protocol/mesh-protocol.js';
import type { SmokeReport } from '../../../src/features/smoke/smoke.js';
import { runCli } from '../../support/cli.js';
import {
  echoServer,
  makeWorld,
  profileToml,
  requireBuild,
  type World,
} from '../../support/world.js';

requireBuild();

async function smoke(world: World, text = false): Promise<ReturnType<typeof runCli>> {
  return runCli(
    ['profile', 'smoke', world.packDir, ...(text ? [] : ['--json']), ...world.dirArgs],
    { env: world.env, home: world.home, cwd: world.workDir },
  );
}

describe('profile smoke through the model wire', () => {
  it('measures each native role offered exactly its grants', async () => {
    const world = await makeWorld({
      registry: `${echoServer('notes', { tools: 'list,add' })}${echoServer('files', { tools: 'read,write!' })}`,
      profile: profileToml('wired', 'lead', {
        lead: {
          natives: ['scout', 'planner'],
          spawn: ['helper'],
          grants: { notes: {}, files: { tools: ['read'] } },
        },
        scout: { natives: ['keeper'], grants: { notes: { tools: ['list'] } } },
        keeper: { grants: { files: { tools: ['read'] } } },
        // a native role with its own spawn grant keeps mmo_mesh; one without is offered none
        planner: { spawn: ['helper'] },
        helper: { grants: { notes: { tools: ['list'] } } },
      }),
    });
    const result = await smoke(world);
    const report = result.json<SmokeReport>();
    expect(report.ok, JSON.stringify(report.diagnostics)).toBe(true);
    expect(report.roles.lead).toMatchObject({
      received: { notes: ['add', 'list'], files: ['read'] },
      mesh: { expected: true, measured: true },
    });
    expect(report.roles.scout).toMatchObject({
      kind: 'native',
      measured: true,
      granted: { notes: ['list'] },
      received: { notes: ['list'] },
      extra: {},
      missing: {},
      mesh: { expected: false, received: [] },
    });
    expect(report.roles.keeper).toMatchObject({
      kind: 'native',
      // nested: the scout, whose native_agents list it, started it
      spawned_by: 'scout',
      measured: true,
      granted: { files: ['read'] },
      received: { files: ['read'] },
      extra: {},
      missing: {},
      mesh: { expected: false, received: [] },
    });
    expect(report.roles.scout).toMatchObject({ spawned_by: 'lead' });
    expect(report.roles.planner).toMatchObject({
      kind: 'native',
      measured: true,
      granted: {},
      received: {},
      mesh: { expected: true, measured: true },
    });
    expect([...report.roles.planner!.mesh.received].sort()).toEqual([...MESH_TOOL_NAMES].sort());
    expect(report.roles.helper).toMatchObject({ received: { notes: ['list'] }, extra: {} });
    expect(report.diagnostics.map((d) => d.code)).not.toContain('native-role-not-isolated');
    expect(report.model_wire).toEqual({ session_enforcing: true });

    const text = await smoke(world, true);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/scout\s+native of lead\s+notes\s+list\s+list\s+ok/);
    expect(text.stdout).toMatch(/keeper\s+native of lead\s+files\s+read\s+read\s+ok/);
  }, 180_000);
});
