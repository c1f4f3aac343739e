/**
 * Rendering of the team fixture, table by table: root config, role files, server grants, mmo_mesh,
 * sandbox and base settings, for the session root process and a participant process.
 */
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import {
  MESH_SESSION_PLACEHOLDER,
  renderAll,
  renderProcess,
} from '../../../src/config/compile/render-process.js';
import { CodexMmoError } from '../../../src/foundation/errors.js';
import type { TomlTable } from '../../../src/foundation/toml/parse-toml.js';
import { FIXTURES, loadFixture, type LoadedFixture } from '../../support/load-fixture.js';

const HOME = '/home/operator';

const team = (): Promise<LoadedFixture> =>
  loadFixture(join(FIXTURES, 'team/config'), join(FIXTURES, 'team/pack'));

function files(
  fixture: LoadedFixture,
  process: string,
  mesh?: { command: string; args: string[] },
  rolesOnWire?: boolean,
) {
  const home = renderProcess(fixture.snapshot, fixture.plan, process, {
    home: HOME,
    ...(mesh ? { mesh } : {}),
    ...(rolesOnWire !== undefined ? { rolesOnWire } : {}),
  });
  const parsed = new Map<string, TomlTable>();
  for (const [path, text] of home.files) parsed.set(path, parse(text));
  return { home, parsed };
}

function server(table: TomlTable | undefined, id: string): TomlTable {
  return ((table?.mcp_servers as TomlTable | undefined)?.[id] ?? {}) as TomlTable;
}

describe('renderProcess: the session root process', () => {
  it('writes config.toml and one role file per reachable native role', async () => {
    const { home } = files(await team(), 'lead');
    expect(home.process).toBe('lead');
    expect([...home.files.keys()]).toEqual([
      'config.toml',
      'agents/reviewer.toml',
      'agents/scribe.toml',
    ]);
  });

  it("carries the root role's instructions, model and sandbox, over the base settings", async () => {
    const config = files(await team(), 'lead').parsed.get('config.toml')!;
    expect(config).toMatchObject({
      model: 'gpt-5.6-sol',
      approval_policy: 'on-request',
      model_reasoning_effort: 'medium',
      // credentials and the mesh credential are for the servers only, never for shell commands
      shell_environment_policy: {
        inherit: 'core',
        ignore_default_excludes: false,
        exclude: ['CODEX_MMO_*', 'ALPHA_TOKEN', 'CODEX_MMO_MESH_TOKEN'],
      },
      features: { shell_snapshot: false },
      developer_instructions: 'You lead the team.',
      default_permissions: 'codex_mmo',
      permissions: { codex_mmo: { extends: ':workspace', network: { enabled: true } } },
    });
    expect(config.sandbox_mode).toBeUndefined();
    expect(config.sandbox_workspace_write).toBeUndefined();
    // a render for inspection knows no session: nothing denied, no project marked
    expect(config.projects).toBeUndefined();
  });

  it('declares every reachable native role beside the base [agents] settings', async () => {
    const config = files(await team(), 'lead').parsed.get('config.toml')!;
    expect(config.agents).toEqual({
      max_threads: 6,
      max_depth: 2,
      reviewer: { description: 'Reviews changes', config_file: 'agents/reviewer.toml' },
      scribe: { description: 'Writes notes', config_file: 'agents/scribe.toml' },
    });
  });

  it("lists the union of the process's servers with the root's grants where the wire cannot narrow", async () => {
    const config = files(await team(), 'lead', undefined, false).parsed.get('config.toml')!;
    expect(Object.keys(config.mcp_servers as TomlTable)).toEqual(['alpha', 'notes', 'mmo_mesh']);
    expect(server(config, 'alpha')).toEqual({
      command: `${HOME}/bin/alpha-mcp`,
      args: ['--stdio'],
      env: { ALPHA_MODE: 'strict' },
      env_vars: ['ALPHA_TOKEN'],
      cwd: `${HOME}/work`,
      enabled: true,
      required: true,
      enabled_tools: ['read', 'write', 'delete'],
      disabled_tools: ['write', 'delete'],
      default_tools_approval_mode: 'writes',
      startup_timeout_sec: 45,
      tool_timeout_sec: 90,
      supports_parallel_tool_calls: false,
      tools: { delete: { approval_mode: 'prompt' } },
    });
    // granted to a native role only: present with its transport, disabled for the root
    expect(server(config, 'notes')).toEqual({
      command: 'notes-mcp',
      enabled: false,
      required: false,
      enabled_tools: ['list', 'add'],
      disabled_tools: ['list', 'add'],
      default_tools_approval_mode: 'approve',
    });
  });

  it('enables in config.toml the union of what the roles of the process are granted where the wire narrows', async () => {
    const fixture = await team();
    const config = files(fixture, 'lead', undefined, true).parsed.get('config.toml')!;
    // the root has alpha.read; its native roles alpha (all tools) and notes (required by one)
    expect(server(config, 'alpha')).toMatchObject({
      enabled: true,
      required: true,
      enabled_tools: ['read', 'write', 'delete'],
      disabled_tools: [],
    });
    expect(server(config, 'notes')).toMatchObject({
      enabled: true,
      required: true,
      enabled_tools: ['list', 'add'],
      disabled_tools: [],
    });
    // the default follows the provider: the fixture's is one the wire fronts
    expect(files(fixture, 'lead').parsed.get('config.toml')).toEqual(config);
    const unfrontable = {
      ...fixture,
      snapshot: {
        ...fixture.snapshot,
        base: { ...fixture.snapshot.base, model_provider: 'ollama' },
      },
    };
    expect(server(files(unfrontable, 'lead').parsed.get('config.toml'), 'notes')).toMatchObject({
      enabled: false,
    });
  });

  it('restates every server completely in each role file with that role’s grants', async () => {
    const { parsed } = files(await team(), 'lead');
    const reviewer = parsed.get('agents/reviewer.toml')!;
    expect(reviewer).toMatchObject({
      name: 'reviewer',
      description: 'Reviews changes',
      developer_instructions: 'You review changes.\nSay "LGTM" only when it is.\n',
      default_permissions: 'codex_mmo',
      permissions: { codex_mmo: { extends: ':read-only' } },
    });
    expect(reviewer.model).toBeUndefined();
    expect(reviewer.sandbox_workspace_write).toBeUndefined();
    expect(server(reviewer, 'alpha')).toMatchObject({
      command: `${HOME}/bin/alpha-mcp`,
      enabled: true,
      required: false,
      enabled_tools: ['read', 'write', 'delete'],
      disabled_tools: [],
    });
    expect(server(reviewer, 'notes')).toMatchObject({
      command: 'notes-mcp',
      enabled: true,
      required: true,
      disabled_tools: [],
    });
    const scribe = parsed.get('agents/scribe.toml')!;
    expect(server(scribe, 'alpha')).toMatchObject({
      command: `${HOME}/bin/alpha-mcp`,
      enabled: false,
      required: false,
      disabled_tools: ['read', 'write', 'delete'],
    });
    expect(server(scribe, 'notes')).toMatchObject({ enabled: true, disabled_tools: ['list'] });
    for (const file of [reviewer, scribe]) {
      expect(Object.keys(file.mcp_servers as TomlTable)).toEqual(['alpha', 'notes', 'mmo_mesh']);
    }
  });

  it('renders mmo_mesh with a marked placeholder, enabled only for roles with spawn/control', async () => {
    const { parsed } = files(await team(), 'lead');
    const mesh = server(parsed.get('config.toml'), 'mmo_mesh');
    expect(mesh).toEqual({
      command: 'codex-mmo',
      args: ['mesh', 'serve', '--session', MESH_SESSION_PLACEHOLDER, '--process', 'lead'],
      env_vars: ['CODEX_MMO_MESH_TOKEN'],
      enabled: true,
      required: true,
      default_tools_approval_mode: 'approve',
      startup_timeout_sec: 60,
      // researcher's lifecycle wait (1200 s floor) plus 60 s protocol overhead
      tool_timeout_sec: 1260,
    });
    expect(server(parsed.get('agents/reviewer.toml'), 'mmo_mesh')).toMatchObject({
      command: 'codex-mmo',
      enabled: false,
      required: false,
    });
  });

  it('uses the launch command for mmo_mesh when one is given', async () => {
    const mesh = {
      command: '/opt/codex-mmo/bin/codex-mmo',
      args: ['mesh', 'serve', '--session', '/s/1'],
    };
    const { parsed } = files(await team(), 'lead', mesh);
    expect(server(parsed.get('config.toml'), 'mmo_mesh')).toMatchObject(mesh);
    expect(server(parsed.get('agents/scribe.toml'), 'mmo_mesh')).toMatchObject(mesh);
  });

  it("adds credential names and CODEX_MMO_* to the operator's shell exclusions, keeping theirs", async () => {
    const fixture = await team();
    const snapshot = {
      ...fixture.snapshot,
      base: {
        ...fixture.snapshot.base,
        shell_environment_policy: {
          inherit: 'none',
          exclude: ['AWS_*', 'CODEX_MMO_MESH_TOKEN'],
          set: { PAGER: 'cat' },
        },
      },
    };
    const render = (base: TomlTable): TomlTable =>
      parse(
        renderProcess({ ...snapshot, base }, fixture.plan, 'lead', { home: HOME }).files.get(
          'config.toml',
        ) ?? '',
      );
    expect(render(snapshot.base).shell_environment_policy).toEqual({
      inherit: 'none',
      ignore_default_excludes: false,
      exclude: ['AWS_*', 'CODEX_MMO_MESH_TOKEN', 'CODEX_MMO_*', 'ALPHA_TOKEN'],
      set: { PAGER: 'cat' },
    });
    const without = Object.fromEntries(
      Object.entries(snapshot.base).filter(([key]) => key !== 'shell_environment_policy'),
    ) as TomlTable;
    expect(render(without).shell_environment_policy).toEqual({
      inherit: 'core',
      ignore_default_excludes: false,
      exclude: ['CODEX_MMO_*', 'ALPHA_TOKEN', 'CODEX_MMO_MESH_TOKEN'],
    });
  });
});

describe('renderProcess: a participant process', () => {
  it('renders its own root, servers and base settings, without mesh or roles', async () => {
    const { home, parsed } = files(await team(), 'researcher');
    expect([...home.files.keys()]).toEqual(['config.toml']);
    const config = parsed.get('config.toml')!;
    expect(config).toMatchObject({
      model: 'gpt-5.6-terra',
      approval_policy: 'on-request',
      developer_instructions: 'You research.',
      sandbox_mode: 'danger-full-access',
    });
    // Codex's own multi-agent settings from codex-base.toml, and no role declarations
    expect(config.agents).toEqual({ max_threads: 6, max_depth: 2 });
    expect(config.sandbox_workspace_write).toBeUndefined();
    // full access cannot deny reads: the legacy sandbox mode, and no permission profile
    expect(config.default_permissions).toBeUndefined();
    // no mesh: the server credentials and CODEX_MMO_* are still kept from the shell
    expect(config.shell_environment_policy).toEqual({
      inherit: 'core',
      ignore_default_excludes: false,
      exclude: ['CODEX_MMO_*', 'WEB_API_KEY', 'WEB_WORKSPACE'],
    });
    expect(Object.keys(config.mcp_servers as TomlTable)).toEqual(['web']);
    expect(server(config, 'web')).toEqual({
      url: 'https://mcp.example.invalid/web',
      bearer_token_env_var: 'WEB_API_KEY',
      http_headers: { 'X-Client': 'codex-mmo' },
      env_http_headers: { 'X-Workspace': 'WEB_WORKSPACE' },
      enabled: true,
      required: true,
      enabled_tools: ['search', 'fetch'],
      disabled_tools: ['fetch'],
      default_tools_approval_mode: 'auto',
      tool_timeout_sec: 30,
    });
  });
});

describe('renderAll', () => {
  it('renders every process, session root first', async () => {
    const fixture = await team();
    expect(renderAll(fixture.snapshot, fixture.plan, { home: HOME }).map((h) => h.process)).toEqual(
      ['lead', 'researcher'],
    );
  });

  it('is deterministic and pure: the same snapshot renders the same bytes', async () => {
    const a = await team();
    const b = await team();
    const text = (f: LoadedFixture) =>
      renderAll(f.snapshot, f.plan, { home: HOME }).map((h) => [...h.files]);
    expect(text(a)).toEqual(text(b));
  });

  it('refuses a process the plan does not have', async () => {
    const fixture = await team();
    expect(() => renderProcess(fixture.snapshot, fixture.plan, 'scribe', { home: HOME })).toThrow(
      CodexMmoError,
    );
    expect(() => renderProcess(fixture.snapshot, fixture.plan, 'scribe', { home: HOME })).toThrow(
      /role 'scribe' of profile 'team' is a native role inside the Codex process of 'lead'.*render --process lead\)\. Processes: lead, researcher/,
    );
    expect(() => renderProcess(fixture.snapshot, fixture.plan, 'nobody', { home: HOME })).toThrow(
      /profile 'team' has no role 'nobody'\. Processes: lead, researcher/,
    );
  });
});

describe('renderProcess: the session boundary', () => {
  const boundary = {
    deny: {
      dirs: [
        '/home/operator/.config/codex-mmo',
        '/home/operator/.codex',
        '/home/operator/.local/state/codex-mmo',
      ],
    },
    cwd: '/home/operator/work/repo',
  };

  it('denies reads of the operator dirs, the state dir whole, by literal entries that need no scan, and marks the cwd and above untrusted', async () => {
    const fixture = await team();
    const rendered = renderProcess(fixture.snapshot, fixture.plan, 'lead', {
      home: HOME,
      boundary,
    });
    const config = parse(rendered.files.get('config.toml') ?? '');
    const fs = (config.permissions as TomlTable).codex_mmo as TomlTable;
    const entries = fs.filesystem as TomlTable;
    expect(entries).toEqual({
      '/home/operator/.config/codex-mmo': 'deny',
      '/home/operator/.codex': 'deny',
      '/home/operator/.local/state/codex-mmo': 'deny',
    });
    expect(config.projects).toEqual({
      '/home/operator/work/repo': { trust_level: 'untrusted' },
      '/home/operator/work': { trust_level: 'untrusted' },
      '/home/operator': { trust_level: 'untrusted' },
      '/home': { trust_level: 'untrusted' },
      '/': { trust_level: 'untrusted' },
    });
    // native roles carry the same profile, so a sub-agent's sandbox denies the same reads
    const reviewer = parse(rendered.files.get('agents/reviewer.toml') ?? '');
    expect(((reviewer.permissions as TomlTable).codex_mmo as TomlTable).filesystem).toEqual(
      entries,
    );
  });
});
