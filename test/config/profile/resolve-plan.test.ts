/**
 * Grant resolution: every derived number (lifecycle floor, +30 margin, Codex default startup,
 * +60 mesh overhead, null mesh timeout), process discovery with cycles, unions, env names, and
 * the grant errors.
 */
import { describe, expect, it } from 'vitest';

import { planToJson } from '../../../src/config/profile/plan-json.js';
import {
  lifecycleWaitSec,
  meshToolTimeoutSec,
  processesOf,
  resolvePlan,
} from '../../../src/config/profile/resolve-plan.js';
import { MAX_PROCESS_MEMBERSHIPS } from '../../../src/config/profile/types.js';
import { validatePackToml } from '../../../src/config/profile/validate-pack.js';
import { http, profile, role, servers, stdio } from '../../support/build.js';

function resolveOk(...args: Parameters<typeof resolvePlan>) {
  const result = resolvePlan(...args);
  expect(result.diagnostics).toEqual([]);
  expect(result.plan).toBeDefined();
  return result.plan!;
}

describe('lifecycle wait', () => {
  it('is 1200 s for a role without grants', () => {
    expect(lifecycleWaitSec(role('a'), servers())).toBe(1200);
  });
  it('uses the Codex default startup of 30 s (+30) when unset, under the 1200 s floor', () => {
    const defs = servers(stdio('s', ['t']));
    expect(lifecycleWaitSec(role('a', { grants: { s: {} } }), defs)).toBe(1200);
  });
  it('is startup + 30 s above the floor', () => {
    const defs = servers(stdio('s', ['t'], { startup_timeout_sec: 1500 }));
    expect(lifecycleWaitSec(role('a', { grants: { s: {} } }), defs)).toBe(1530);
  });
  it('keeps the floor exactly at startup 1170 and passes it at 1171', () => {
    const at = servers(stdio('s', ['t'], { startup_timeout_sec: 1170 }));
    const over = servers(stdio('s', ['t'], { startup_timeout_sec: 1171 }));
    expect(lifecycleWaitSec(role('a', { grants: { s: {} } }), at)).toBe(1200);
    expect(lifecycleWaitSec(role('a', { grants: { s: {} } }), over)).toBe(1201);
  });
  it('takes the largest startup timeout over the role’s grants, fractional ones too', () => {
    const defs = servers(
      stdio('a', ['t'], { startup_timeout_sec: 1300 }),
      http('b', ['t'], { startup_timeout_sec: 2000.5 }),
      stdio('c', ['t']),
    );
    const r = role('x', { grants: { a: {}, b: { required: false }, c: {} } });
    expect(lifecycleWaitSec(r, defs)).toBe(2030.5);
  });
  it('of a process counts only the root role’s grants, not its native roles’', () => {
    const defs = servers(stdio('slow', ['t'], { startup_timeout_sec: 3000 }));
    const p = profile('lead', [
      role('lead', { native_agents: ['helper'] }),
      role('helper', { grants: { slow: {} } }),
    ]);
    const plan = resolveOk(p, defs);
    expect(plan.processes[0]).toMatchObject({ root: 'lead', lifecycle_wait_sec: 1200 });
    expect(plan.roles.helper!.lifecycle_wait_sec).toBe(3030);
  });
});

describe('mmo_mesh tool timeout', () => {
  const defs = servers(
    stdio('slow', ['t'], { startup_timeout_sec: 1500 }),
    stdio('fast', ['t'], { startup_timeout_sec: 5 }),
  );
  it('is null without spawn and control', () => {
    const p = profile('lead', [role('lead')]);
    expect(meshToolTimeoutSec(p, p.agents.lead!, defs)).toBeNull();
    expect(resolveOk(p, defs).roles.lead!.mesh_tool_timeout_sec).toBeNull();
  });
  it('is the floor plus 60 s for targets without slow servers', () => {
    const p = profile('lead', [
      role('lead', { spawn: ['w'] }),
      role('w', { grants: { fast: {} } }),
    ]);
    expect(resolveOk(p, defs).roles.lead!.mesh_tool_timeout_sec).toBe(1260);
  });
  it('is the largest lifecycle wait over spawn ∪ control, plus 60 s', () => {
    const p = profile('lead', [
      role('lead', { spawn: ['w'], control: ['v'] }),
      role('w', { grants: { fast: {} } }),
      role('v', { grants: { slow: {} } }),
    ]);
    const plan = resolveOk(p, defs);
    expect(plan.roles.lead!.mesh_tool_timeout_sec).toBe(1530 + 60);
    expect(plan.roles.w!.mesh_tool_timeout_sec).toBeNull();
  });
  it('counts a control-only target', () => {
    const p = profile('lead', [
      role('lead', { control: ['v'] }),
      role('v', { grants: { slow: {} } }),
    ]);
    expect(resolveOk(p, defs).roles.lead!.mesh_tool_timeout_sec).toBe(1590);
  });
  it('computes each target as a process root: its native roles’ servers do not count', () => {
    const p = profile('lead', [
      role('lead', { spawn: ['w'] }),
      role('w', { native_agents: ['n'] }),
      role('n', { grants: { slow: {} } }),
    ]);
    expect(resolveOk(p, defs).roles.lead!.mesh_tool_timeout_sec).toBe(1260);
  });
  it('handles a role that spawns itself', () => {
    const p = profile('lead', [role('lead', { spawn: ['lead'], grants: { slow: {} } })]);
    const plan = resolveOk(p, defs);
    expect(plan.roles.lead!.mesh_tool_timeout_sec).toBe(1590);
    expect(plan.processes.map((x) => x.root)).toEqual(['lead']);
  });
});

describe('processes', () => {
  it('follows spawn transitively from every role of every process, with native closures and cycles', () => {
    const p = profile('lead', [
      role('lead', { native_agents: ['rev'], spawn: ['r1'] }),
      role('rev', { native_agents: ['lead', 'rev'], spawn: ['r2'] }),
      role('r1', { spawn: ['r1', 'lead'] }),
      role('r2', { native_agents: ['r3'] }),
      role('r3', { native_agents: ['r2'], spawn: ['r4'] }),
      role('r4'),
      role('idle', { spawn: ['r4'] }),
    ]);
    expect(processesOf(p)).toEqual([
      { root: 'lead', roles: ['lead', 'rev'] },
      { root: 'r1', roles: ['r1'] },
      { root: 'r2', roles: ['r2', 'r3'] },
      { root: 'r4', roles: ['r4'] },
    ]);
  });
  it('does not start a process for a control-only role', () => {
    const p = profile('lead', [role('lead', { control: ['w'] }), role('w')]);
    expect(processesOf(p)?.map((x) => x.root)).toEqual(['lead']);
  });
  it('refuses a native/spawn graph whose processes exceed the membership bound, early', () => {
    // every role native to the next two and spawning another: n processes of n roles each
    const ring = (n: number) =>
      profile(
        'r0',
        Array.from({ length: n }, (_, i) =>
          role(`r${i}`, {
            native_agents: [`r${(i + 1) % n}`, `r${(i + 2) % n}`],
            spawn: [`r${(i * 7) % n}`],
          }),
        ),
      );
    expect(processesOf(ring(100), MAX_PROCESS_MEMBERSHIPS)).toHaveLength(100);
    expect(processesOf(ring(101), MAX_PROCESS_MEMBERSHIPS)).toBeUndefined();
    const result = resolvePlan(ring(5000), servers(), {
      file: '/p/profile.toml',
      positions: validatePackToml({
        file: '/p/profile.toml',
        bytes: new TextEncoder().encode('schema_version = 8\nname = "x"\nroot = "r0"\n'),
      }).positions!,
    });
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics).toMatchObject([
      { code: 'plan-too-large', file: '/p/profile.toml', line: 3, column: 1, path: 'root' },
    ]);
    expect(result.diagnostics[0]!.message).toContain(`more than ${MAX_PROCESS_MEMBERSHIPS}`);
  });
  it('lets a role be native in one process and the root of another', () => {
    const p = profile('lead', [role('lead', { native_agents: ['w'], spawn: ['w'] }), role('w')]);
    expect(processesOf(p)).toEqual([
      { root: 'lead', roles: ['lead', 'w'] },
      { root: 'w', roles: ['w'] },
    ]);
  });
  it('unions servers over the process’s roles and lists the variable names they reference', () => {
    const defs = servers(
      stdio('zeta', ['a', 'b'], { env_vars: ['ZETA_TOKEN', 'SHARED'], env: { LEVEL: 'x' } }),
      http('alpha', ['q'], {
        bearer_token_env_var: 'ALPHA_KEY',
        env_http_headers: { 'X-Workspace': 'ALPHA_WS', 'X-Shared': 'SHARED' },
      }),
      stdio('unused', ['u'], { env_vars: ['UNUSED_TOKEN'] }),
      stdio('worker', ['w'], { env_vars: ['WORKER_TOKEN'] }),
    );
    const p = profile('lead', [
      role('lead', {
        native_agents: ['rev'],
        spawn: ['w'],
        grants: { zeta: { enabled_tools: ['a'] } },
      }),
      role('rev', { grants: { alpha: {}, zeta: { enabled_tools: ['b'] } } }),
      role('w', { grants: { worker: {} } }),
    ]);
    const plan = resolveOk(p, defs);
    expect(plan.processes).toEqual([
      {
        root: 'lead',
        roles: ['lead', 'rev'],
        servers: ['alpha', 'zeta'],
        lifecycle_wait_sec: 1200,
        env: ['ALPHA_KEY', 'ALPHA_WS', 'SHARED', 'ZETA_TOKEN'],
        mesh: true,
      },
      {
        root: 'w',
        roles: ['w'],
        servers: ['worker'],
        lifecycle_wait_sec: 1200,
        env: ['WORKER_TOKEN'],
        mesh: false,
      },
    ]);
    expect(Object.keys(plan.servers)).toEqual(['alpha', 'worker', 'zeta']);
  });
  it('marks mmo_mesh present when a native role has spawn or control', () => {
    const p = profile('lead', [
      role('lead', { native_agents: ['rev'] }),
      role('rev', { control: ['w'] }),
      role('w'),
    ]);
    expect(resolveOk(p, servers()).processes[0]!.mesh).toBe(true);
  });
});

describe('effective grants', () => {
  const defs = servers(stdio('s', ['one', 'two', 'three', 'four'], { startup_timeout_sec: 10 }));
  it('grants the operator’s whole list when enabled_tools is omitted', () => {
    const plan = resolveOk(profile('a', [role('a', { grants: { s: {} } })]), defs);
    expect(plan.roles.a!.grants.s).toEqual({
      enabled_tools: ['one', 'two', 'three', 'four'],
      disabled_tools: [],
      required: true,
    });
  });
  it('narrows to the subset in operator order and disables the rest in operator order', () => {
    const plan = resolveOk(
      profile('a', [
        role('a', { grants: { s: { enabled_tools: ['four', 'two'], required: false } } }),
      ]),
      defs,
    );
    expect(plan.roles.a!.grants.s).toEqual({
      enabled_tools: ['two', 'four'],
      disabled_tools: ['one', 'three'],
      required: false,
    });
  });
  it('lists grants sorted by server ID and omits servers not granted', () => {
    const more = servers(stdio('b', ['x']), stdio('a', ['y']), stdio('c', ['z']));
    const plan = resolveOk(profile('r', [role('r', { grants: { c: {}, a: {} } })]), more);
    expect(Object.keys(plan.roles.r!.grants)).toEqual(['a', 'c']);
  });
  it('produces the docs/design.md §7 JSON shape', () => {
    const p = profile(
      'a',
      [role('a', { spawn: ['b'], grants: { s: { enabled_tools: ['one'] } } }), role('b')],
      'team',
    );
    const json = planToJson(resolveOk(p, defs));
    expect(JSON.parse(JSON.stringify(json))).toEqual({
      profile: 'team',
      root: 'a',
      roles: {
        a: {
          grants: {
            s: { enabled_tools: ['one'], disabled_tools: ['two', 'three', 'four'], required: true },
          },
          mesh_tool_timeout_sec: 1260,
          lifecycle_wait_sec: 1200,
        },
        b: { grants: {}, mesh_tool_timeout_sec: null, lifecycle_wait_sec: 1200 },
      },
      processes: [
        { root: 'a', roles: ['a'], servers: ['s'], lifecycle_wait_sec: 1200, env: [], mesh: true },
        { root: 'b', roles: ['b'], servers: [], lifecycle_wait_sec: 1200, env: [], mesh: false },
      ],
    });
  });
});

describe('grant errors', () => {
  const text = `schema_version = 8
name = "p"
root = "lead"

[agents.lead]
description = "Lead"
instructions = "Lead."

[agents.lead.tool_mcp_servers.firecrawls]
required = true

[agents.lead.tool_mcp_servers.ida]
enabled_tools = ["decompile", "rename_function", "list_functons"]

[agents.lead.tool_mcp_servers.broken]
`;
  const file = '/packs/p/profile.toml';
  const validation = validatePackToml({ file, bytes: new TextEncoder().encode(text) });
  const defs = servers(
    http('firecrawl', ['search', 'scrape']),
    stdio('ida', ['list_functions', 'decompile']),
  );

  it('reports each bad grant with file, line, column and the operator’s list', () => {
    expect(validation.diagnostics).toEqual([]);
    const result = resolvePlan(
      validation.profile!,
      defs,
      { file, positions: validation.positions! },
      { invalidServers: new Map([['broken', '/cfg/tool-mcp.d/10-broken.toml']]) },
    );
    expect(result.plan).toBeUndefined();
    const simplified = result.diagnostics.map((d) => [
      d.code,
      d.file,
      d.line,
      d.column,
      d.path,
      d.server,
    ]);
    expect(simplified).toEqual([
      ['unknown-server', file, 9, 31, 'agents.lead.tool_mcp_servers.firecrawls', 'firecrawls'],
      [
        'tool-not-allowed',
        file,
        13,
        31,
        'agents.lead.tool_mcp_servers.ida.enabled_tools[1]',
        'ida',
      ],
      [
        'tool-not-allowed',
        file,
        13,
        50,
        'agents.lead.tool_mcp_servers.ida.enabled_tools[2]',
        'ida',
      ],
      ['invalid-server-grant', file, 15, 31, 'agents.lead.tool_mcp_servers.broken', 'broken'],
    ]);
    const [unknown, outside, typo, invalid] = result.diagnostics;
    expect(unknown!.message).toContain('Did you mean `firecrawl`?');
    expect(unknown!.message).toContain('Registered servers: firecrawl, ida');
    expect(outside!.message).toContain('list_functions, decompile');
    expect(typo!.message).toContain('Did you mean `list_functions`?');
    expect(invalid!.message).toContain('/cfg/tool-mcp.d/10-broken.toml');
    expect(result.diagnostics.every((d) => d.severity === 'error')).toBe(true);
  });

  it('rejects mmo_mesh and an empty enabled_tools in data that did not come from a pack', () => {
    const p = profile('a', [role('a', { grants: { mmo_mesh: {}, ida: { enabled_tools: [] } } })]);
    const result = resolvePlan(p, defs);
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual([
      'reserved-server-grant',
      'empty-enabled-tools',
    ]);
    expect(result.diagnostics[1]!.message).toContain('list_functions, decompile');
  });

  it('says when the registry is empty', () => {
    const result = resolvePlan(profile('a', [role('a', { grants: { web: {} } })]), servers());
    expect(result.diagnostics[0]!.message).toContain('The registry defines no servers');
  });
});
