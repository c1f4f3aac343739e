/**
 * `profile show` as written and `--resolved` (docs/design.md §7 JSON shape and text), by installed
 * name and by path, through the CLI in-process.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { exampleCli } from '../support/config.js';
import { EXAMPLE_PACK } from '../support/examples.js';

const setup = () => exampleCli();

describe('profile show', () => {
  it('shows the pack as written, by path and by installed name', async () => {
    const t = await setup();
    const byPath = await t.run(['profile', 'show', EXAMPLE_PACK, '--json']);
    expect(byPath.code).toBe(0);
    const written = byPath.json<Record<string, unknown>>();
    expect(written).toMatchObject({
      schema_version: 8,
      name: 'research',
      root: 'lead',
      path: EXAMPLE_PACK,
      agents: {
        lead: {
          instructions_file: 'lead.md',
          permissions: 'workspace-write',
          native_agents: ['reviewer'],
          spawn: ['researcher'],
          tool_mcp_servers: { everything: { required: true, enabled_tools: ['echo', 'get-sum'] } },
        },
      },
    });
    await t.run(['profile', 'install', EXAMPLE_PACK]);
    const byName = await t.run(['profile', 'show', 'research']);
    expect(byName.code).toBe(0);
    expect(byName.stdout).toContain('profile research');
    expect(byName.stdout).toMatch(
      /^lead\s+workspace-write\s+no\s+-\s+reviewer\s+researcher\s+researcher$/m,
    );
    expect(byName.stdout).toContain('instructions from lead.md');
  });

  it('prints the resolved plan in the docs/design.md §7 shape', async () => {
    const t = await setup();
    const r = await t.run(['profile', 'show', EXAMPLE_PACK, '--resolved', '--json']);
    expect(r.code).toBe(0);
    const plan = r.json<Record<string, unknown>>();
    expect(plan).toMatchObject({
      profile: 'research',
      root: 'lead',
      roles: {
        lead: {
          grants: {
            everything: {
              enabled_tools: ['echo', 'get-sum'],
              disabled_tools: [
                'get-annotated-message',
                'get-structured-content',
                'gzip-file-as-resource',
              ],
              required: true,
            },
          },
          mesh_tool_timeout_sec: 1260,
        },
        reviewer: { mesh_tool_timeout_sec: null },
        researcher: {
          grants: {
            research: {
              enabled_tools: ['echo', 'get-resource-links'],
              disabled_tools: ['get-sum'],
              required: false,
            },
          },
          mesh_tool_timeout_sec: null,
        },
      },
      processes: [
        {
          root: 'lead',
          roles: ['lead', 'reviewer'],
          servers: ['everything'],
          lifecycle_wait_sec: 1200,
          env: ['EVERYTHING_API_TOKEN'],
        },
        {
          root: 'researcher',
          roles: ['researcher'],
          servers: ['everything', 'research'],
          lifecycle_wait_sec: 1200,
          env: ['EVERYTHING_API_TOKEN', 'RESEARCH_API_TOKEN', 'RESEARCH_WORKSPACE_ID'],
        },
      ],
    });
    for (const p of plan.processes as Record<string, unknown>[]) {
      for (const key of ['root', 'roles', 'servers', 'lifecycle_wait_sec', 'env']) {
        expect(p).toHaveProperty(key);
      }
    }
    // every grant has exactly the three fixed fields, every role its grants and mesh timeout
    for (const role of Object.values(plan.roles as Record<string, Record<string, unknown>>)) {
      expect(role).toHaveProperty('mesh_tool_timeout_sec');
      for (const grant of Object.values(role.grants as Record<string, object>)) {
        expect(Object.keys(grant).sort()).toEqual(['disabled_tools', 'enabled_tools', 'required']);
      }
    }
  });

  it('reports the pack’s own problems and its grant problems in one run', async () => {
    const t = await setup();
    const pack = join(t.base, 'broken');
    await mkdir(pack);
    await writeFile(
      join(pack, 'profile.toml'),
      [
        'schema_version = 8',
        'name = "broken"',
        'root = "lead"',
        '',
        '[agents.lead]',
        'description = "Lead"',
        'instructions = "Lead."',
        'native_agents = ["ghost"]',
        '',
        '[agents.lead.tool_mcp_servers.everything]',
        'enabled_tools = ["echo", "shout"]',
        '',
        '[agents.lead.tool_mcp_servers.evrything]',
        '',
        '[agents.lead.tool_mcp_servers.research]',
        'enabled_tools = []',
        '',
      ].join('\n'),
    );
    const r = await t.run(['profile', 'show', pack, '--resolved', '--json']);
    expect(r.code).toBe(1);
    const { ok, diagnostics } = r.json<{
      ok: boolean;
      diagnostics: { code: string; line: number; column: number; message: string }[];
    }>();
    expect(ok).toBe(false);
    expect(diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
      ['unknown-role', 8, 18],
      ['tool-not-allowed', 11, 26],
      ['unknown-server', 13, 31],
      ['empty-enabled-tools', 16, 1],
    ]);
    // the pack alone cannot name the operator's list; with the registry, the message does
    expect(diagnostics[3]!.message).toContain(
      "choose at least one tool from the operator's enabled_tools for `research`: echo, get-sum, get-resource-links",
    );
    expect(diagnostics[1]!.message).toContain(
      "the operator's enabled_tools for `everything`: echo, get-sum",
    );
    expect(diagnostics[2]!.message).toContain('Did you mean `everything`?');
    // without --resolved the registry is not consulted
    const plain = await t.run(['profile', 'show', pack, '--json']);
    expect(
      plain.json<{ diagnostics: { code: string }[] }>().diagnostics.map((d) => d.code),
    ).toEqual(['unknown-role', 'empty-enabled-tools']);
  });

  it('carries warnings in --json, and says so when given profile.toml instead of its directory', async () => {
    const t = await setup();
    const pack = join(t.base, 'net');
    await mkdir(pack);
    await writeFile(
      join(pack, 'profile.toml'),
      'schema_version = 8\nname = "net"\nroot = "a"\n[agents.a]\ndescription = "A"\ninstructions = "A."\nnetwork_access = true\n',
    );
    const shown = await t.run(['profile', 'show', pack, '--json']);
    expect(shown.code).toBe(0);
    expect(shown.json()).toMatchObject({
      ok: true,
      name: 'net',
      diagnostics: [{ severity: 'warning', code: 'network-access-ignored', line: 7 }],
    });
    const file = await t.run(['profile', 'show', join(pack, 'profile.toml')]);
    expect(file.code).toBe(1);
    expect(file.stderr).toContain(
      `is a file, not a pack directory; give the directory that holds it: ${pack}`,
    );
  });

  it('prints the resolved plan as aligned text', async () => {
    const t = await setup();
    const r = await t.run(['profile', 'show', EXAMPLE_PACK, '--resolved']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ROOT\s+ROLES\s+SERVERS\s+LIFECYCLE_WAIT\s+MMO_MESH\s+ENV$/m);
    expect(r.stdout).toMatch(
      /^lead\s+lead, reviewer\s+everything\s+1200 s\s+yes\s+EVERYTHING_API_TOKEN$/m,
    );
    expect(r.stdout).toMatch(/^lead\s+1260 s\s+1200 s$/m);
    expect(r.stdout).toMatch(/^reviewer\s+- \(no spawn\/control\)\s+1200 s$/m);
  });

  it('exits 1 with positioned diagnostics when grants do not resolve', async () => {
    const t = await setup();
    const r = await t.run([
      'profile',
      'show',
      EXAMPLE_PACK,
      '--resolved',
      '--config-dir',
      join(t.base, 'empty-config'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/profile\.toml:\d+:\d+: error\[unknown-server\]/);
    expect(r.stderr).toContain('The registry defines no servers');
    const json = await t.run([
      'profile',
      'show',
      EXAMPLE_PACK,
      '--resolved',
      '--json',
      '--config-dir',
      join(t.base, 'empty-config'),
    ]);
    expect(json.code).toBe(1);
    expect(json.json<{ ok: boolean }>().ok).toBe(false);
  });

  it('suggests an installed name for a misspelt profile', async () => {
    const t = await setup();
    await t.run(['profile', 'install', EXAMPLE_PACK]);
    const r = await t.run(['profile', 'show', 'reserch']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[profile-not-found]');
    expect(r.stderr).toContain('did you mean `research`?');
  });
});
