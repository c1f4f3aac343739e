/**
 * Property: over generated registries and packs, no role is ever rendered with a tool outside the
 * operator's list, `enabled_tools` is always the operator list, and `disabled_tools` is always the
 * operator list minus the role's grant (everything when the role has no grant).
 */
import fc from 'fast-check';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { renderAll } from '../../../src/config/compile/render-process.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import type { GrantSpec, ProfileData, RoleSpec } from '../../../src/config/profile/types.js';
import type { ServerDefinition } from '../../../src/config/registry/types.js';
import { buildSnapshot } from '../../../src/config/snapshot/build-snapshot.js';
import type { TomlTable } from '../../../src/foundation/toml/parse-toml.js';

const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,9}$/);

const serverArb = fc.record({
  id: name.filter((id) => id !== 'mmo_mesh'),
  tools: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_.-]{0,7}$/), {
    minLength: 1,
    maxLength: 5,
  }),
  stdio: fc.boolean(),
  tilde: fc.boolean(),
});

const scenario = fc
  .record({
    // unique as Codex names them too (`-` becomes `_`): a collision is its own diagnostic
    servers: fc.uniqueArray(serverArb, {
      selector: (s) => s.id.replace(/-/g, '_'),
      minLength: 1,
      maxLength: 6,
    }),
    roleCount: fc.integer({ min: 1, max: 6 }),
  })
  .chain(({ servers, roleCount }) => {
    const roles = Array.from({ length: roleCount }, (_, k) => `r${k}`);
    const grantArb = fc.subarray(servers).chain((granted) =>
      fc.tuple(
        ...granted.map((s) =>
          fc.record({
            server: fc.constant(s.id),
            required: fc.boolean(),
            tools: fc.option(fc.subarray(s.tools, { minLength: 1 }), { nil: undefined }),
          }),
        ),
      ),
    );
    const roleArb = fc.record({
      grants: grantArb,
      native: fc.subarray(roles),
      spawn: fc.subarray(roles),
      control: fc.subarray(roles),
    });
    return fc.record({
      servers: fc.constant(servers),
      roles: fc.tuple(...roles.map(() => roleArb)),
    });
  });

function definitionOf(s: {
  id: string;
  tools: string[];
  stdio: boolean;
  tilde: boolean;
}): ServerDefinition {
  const common = {
    id: s.id,
    enabled_tools: s.tools,
    default_tools_approval_mode: 'writes' as const,
  };
  return s.stdio
    ? { ...common, transport: 'stdio', command: s.tilde ? `~/bin/${s.id}` : s.id }
    : { ...common, transport: 'streamable_http', url: `https://${s.id}.example.invalid/mcp` };
}

describe('rendering over generated registries and packs', () => {
  it('never exceeds the operator list and always disables exactly operator minus grant', () => {
    fc.assert(
      fc.property(scenario, ({ servers, roles }) => {
        const definitions = new Map(servers.map((s) => [s.id, definitionOf(s)]));
        const agents: Record<string, RoleSpec> = {};
        roles.forEach((r, k) => {
          const grants: Record<string, GrantSpec> = {};
          for (const g of r.grants) {
            grants[g.server] = {
              server: g.server,
              required: g.required,
              ...(g.tools !== undefined ? { enabled_tools: g.tools } : {}),
            };
          }
          agents[`r${k}`] = {
            name: `r${k}`,
            description: `role ${k}`,
            instructions: `You are role ${k}.`,
            permissions: 'read-only',
            network_access: false,
            native_agents: r.native,
            spawn: r.spawn,
            control: r.control,
            grants,
          };
        });
        const profile: ProfileData = { schema_version: 8, name: 'gen', root: 'r0', agents };
        const { plan, diagnostics } = resolvePlan(profile, definitions);
        expect(diagnostics).toEqual([]);
        if (plan === undefined) throw new Error('no plan');
        const snapshot = buildSnapshot(profile, definitions, {}, {});

        // rolesOnWire: the process's config.toml enables the union of its roles' grants
        for (const onWire of [false, true])
          for (const home of renderAll(snapshot, plan, { home: '/h', rolesOnWire: onWire })) {
            const process = plan.processes.find((p) => p.root === home.process)!;
            for (const [path, text] of home.files) {
              const roleName = path === 'config.toml' ? home.process : path.slice(7, -5);
              const layer = (onWire && path === 'config.toml' ? process.roles : [roleName]).map(
                (name) => agents[name]!,
              );
              const table = parse(text) as TomlTable;
              const rendered = table.mcp_servers as Record<string, TomlTable>;
              const ids = Object.keys(rendered).filter((id) => id !== 'mmo_mesh');
              expect(ids).toEqual(process.servers);
              expect('mmo_mesh' in rendered).toBe(process.mesh);
              for (const id of ids) {
                const entry = rendered[id]!;
                const operator = definitions.get(id)!.enabled_tools;
                const grants = layer.flatMap((r) =>
                  r.grants[id] === undefined ? [] : [r.grants[id]],
                );
                const grant =
                  grants.length === 0 ? undefined : { required: grants.some((g) => g.required) };
                const granted = grants.flatMap((g) => g.enabled_tools ?? operator);
                expect(entry.enabled_tools).toEqual(operator);
                expect(entry.disabled_tools).toEqual(operator.filter((t) => !granted.includes(t)));
                expect(entry.enabled).toBe(grant !== undefined);
                expect(entry.required).toBe(grant?.required ?? false);
                // what Codex would offer: enabled_tools minus disabled_tools, only when enabled
                const offered = entry.enabled
                  ? (entry.enabled_tools as string[]).filter(
                      (t) => !(entry.disabled_tools as string[]).includes(t),
                    )
                  : [];
                expect(offered.every((t) => operator.includes(t))).toBe(true);
                expect(offered).toEqual(operator.filter((t) => granted.includes(t)));
                expect(entry.command ?? entry.url).toBeDefined();
                if (typeof entry.command === 'string') expect(entry.command).not.toMatch(/^~/);
              }
              if (process.mesh) {
                expect(rendered.mmo_mesh!.enabled).toBe(
                  layer.some((r) => r.spawn.length + r.control.length > 0),
                );
              }
            }
          }
      }),
      { numRuns: 200 },
    );
  });
});
