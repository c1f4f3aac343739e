/**
 * `profile show` as written and `--resolved` (DESIGN §7 JSON shape and text), by installed name
 * and by path, through the CLI in-process.
 */
import { chmod, cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { EXAMPLE_CONFIG, EXAMPLE_PACK, tmpDir } from '../profile/tmp.js';

async function setup() {
  const base = await tmpDir();
  const config = join(base, 'config');
  await cp(EXAMPLE_CONFIG, config, { recursive: true });
  await chmod(join(config, 'credentials.env'), 0o600);
  const env = {
    PATH: process.env.PATH,
    HOME: base,
    CODEX_MMO_DATA_DIR: join(base, 'data'),
    CODEX_MMO_CONFIG_DIR: config,
  };
  return {
    base,
    config,
    env,
    run: (args: string[]) => runCli(args, { env, home: base, cwd: base }),
  };
}

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

  it('prints the resolved plan in the DESIGN §7 shape', async () => {
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
