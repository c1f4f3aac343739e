/**
 * `profile smoke` end to end: real Codex, real MCP servers (test/fixtures/servers/echo-server.mjs)
 * and the scripted model. Checks per-role granted versus received tools, native roles measured as
 * sharing their root's tools, failed servers, missing variables, and that a credential reaches
 * its server but never the output.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { SCRIPTED_PROVIDER_ID } from '../../src/codex/scripted-model.js';
import { smokeHome, toolDifference, type SmokeReport } from '../../src/session/smoke.js';
import { runCli } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const CODEX = resolve('node_modules/.bin/codex');
const ECHO = resolve('test/fixtures/servers/echo-server.mjs');
const CANARY = 'smoke-canary-9f8e7d6c5b4a';

function stdioServer(id: string, tools: string, enabled: string[], extra = ''): string {
  return `
[tool_mcp_servers.${id}]
transport = "stdio"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(ECHO)}, "--tools", ${JSON.stringify(tools)}${extra}]
enabled_tools = ${JSON.stringify(enabled)}
default_tools_approval_mode = "writes"
startup_timeout_sec = 20
`;
}

async function setup(fragment: string, profile: string, credentials?: string) {
  const root = await tmpDir();
  const config = join(root, 'config');
  const pack = join(root, 'pack');
  await mkdir(join(config, 'tool-mcp.d'), { recursive: true });
  await mkdir(pack);
  await writeFile(join(config, 'tool-mcp.d', '10-servers.toml'), `schema_version = 8\n${fragment}`);
  await writeFile(join(pack, 'profile.toml'), profile);
  if (credentials !== undefined) {
    await writeFile(join(config, 'credentials.env'), credentials);
    await chmod(join(config, 'credentials.env'), 0o600);
  }
  const args = [
    '--config-dir',
    config,
    '--data-dir',
    join(root, 'data'),
    '--state-dir',
    join(root, 'state'),
    '--codex-bin',
    CODEX,
  ];
  return { root, pack, args };
}

const TEAM = `schema_version = 8
name = "smoke-team"
root = "lead"

[agents.lead]
description = "Leads"
instructions = "You lead."
native_agents = ["reviewer"]
spawn = ["researcher"]

[agents.lead.tool_mcp_servers.files]
enabled_tools = ["read"]

[agents.reviewer]
description = "Reviews"
instructions = "You review."

[agents.reviewer.tool_mcp_servers.notes]

[agents.researcher]
description = "Researches"
instructions = "You research."

[agents.researcher.tool_mcp_servers.web]
enabled_tools = ["search"]
`;

describe('smoke helpers', () => {
  it('computes per-server differences', () => {
    expect(toolDifference({ a: ['x', 'y'], b: ['z'] }, { a: ['y'] })).toEqual({
      a: ['x'],
      b: ['z'],
    });
    expect(toolDifference({ a: ['x'] }, { a: ['x'] })).toEqual({});
  });

  it('points a rendered home at the scripted model and leaves mmo_mesh out', () => {
    const adapted = smokeHome(
      {
        process: 'lead',
        files: new Map([
          [
            'config.toml',
            'model = "gpt-x"\n[model_providers.own]\nname = "own"\n[mcp_servers.mmo_mesh]\ncommand = "x"\n[mcp_servers.files]\ncommand = "y"\n',
          ],
          ['agents/r.toml', 'name = "r"\n[mcp_servers.mmo_mesh]\ncommand = "x"\n'],
        ]),
      },
      'http://127.0.0.1:1/v1',
    );
    const config = parse(adapted.files.get('config.toml') ?? '');
    expect(config.model_provider).toBe(SCRIPTED_PROVIDER_ID);
    expect(Object.keys(config.model_providers as object).sort()).toEqual(
      ['own', SCRIPTED_PROVIDER_ID].sort(),
    );
    expect(Object.keys(config.mcp_servers as object)).toEqual(['files']);
    expect(parse(adapted.files.get('agents/r.toml') ?? '').mcp_servers).toEqual({});
  });
});

describe('profile smoke with real Codex', () => {
  it('passes when every root and participant role receives exactly its grants', async () => {
    const envFile = join(await tmpDir(), 'files-env.json');
    const fragment =
      stdioServer(
        'files',
        'read,write!',
        ['read', 'write'],
        `, "--record-env", ${JSON.stringify(envFile)}`,
      ) +
      'env_vars = ["FILES_TOKEN"]\n' +
      stdioServer('notes', 'list,add', ['list', 'add']) +
      stdioServer('web', 'search,fetch', ['search', 'fetch']);
    const { root, pack, args } = await setup(fragment, TEAM, `FILES_TOKEN=${CANARY}\n`);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root };

    const result = await runCli(['profile', 'smoke', pack, '--json', ...args], { env, home: root });
    const report = result.json<SmokeReport>();
    expect(result.stderr + result.stdout).not.toContain(CANARY);
    expect(report.ok, JSON.stringify(report.diagnostics)).toBe(true);
    expect(result.code).toBe(0);
    expect(report.profile).toBe('smoke-team');
    expect(report.roles.lead).toMatchObject({
      process: 'lead',
      kind: 'root',
      measured: true,
      granted: { files: ['read'] },
      received: { files: ['read'] },
      extra: {},
      missing: {},
    });
    expect(report.roles.researcher).toMatchObject({
      process: 'researcher',
      kind: 'participant',
      received: { web: ['search'] },
      extra: {},
      missing: {},
    });
    // measured, not assumed: the native role gets its root's tools, not its own grant
    expect(report.roles.reviewer).toMatchObject({
      process: 'lead',
      kind: 'native',
      shared_process: true,
      measured: true,
      granted: { notes: ['add', 'list'] },
      received: { files: ['read'] },
      extra: { files: ['read'] },
      missing: { notes: ['add', 'list'] },
    });
    expect(report.diagnostics.map((d) => d.code)).toContain('native-role-not-isolated');
    expect(report.servers_failed).toEqual([]);
    expect(report.missing_env).toEqual([]);
    const serverEnv = JSON.parse(await readFile(envFile, 'utf8')) as Record<string, string>;
    expect(serverEnv.FILES_TOKEN).toBe(CANARY);

    const text = await runCli(['profile', 'smoke', pack, ...args], { env, home: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/lead\s+root\s+files\s+read\s+read\s+ok/);
    expect(text.stdout).toMatch(
      /reviewer\s+native of lead\s+files\s+-\s+read\s+extra: read \(shared process\)/,
    );
    expect(text.stdout).toContain('smoke: passed');
    expect(text.stdout + text.stderr).not.toContain(CANARY);
  }, 180_000);

  it('fails on missing tools, a failed required server and missing variables', async () => {
    const fragment =
      stdioServer('files', 'read', ['read', 'ghost']) +
      stdioServer('web', 'search', ['search'], ', "--fail"') +
      'env_vars = ["WEB_KEY"]\n';
    const profile = `schema_version = 8
name = "broken-team"
root = "lead"

[agents.lead]
description = "Leads"
instructions = "You lead."
spawn = ["researcher"]

[agents.lead.tool_mcp_servers.files]

[agents.researcher]
description = "Researches"
instructions = "You research."

[agents.researcher.tool_mcp_servers.web]
`;
    const { root, pack, args } = await setup(fragment, profile);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root };
    const result = await runCli(['profile', 'smoke', pack, '--json', ...args], { env, home: root });
    const report = result.json<SmokeReport>();
    expect(result.code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.roles.lead).toMatchObject({
      received: { files: ['read'] },
      missing: { files: ['ghost'] },
    });
    expect(report.roles.researcher?.measured).toBe(false);
    expect(report.servers_failed).toEqual([
      expect.objectContaining({ process: 'researcher', server: 'web', required: true }),
    ]);
    expect(report.missing_env).toEqual([
      { process: 'researcher', variable: 'WEB_KEY', server: 'web' },
    ]);
    const codes = report.diagnostics.map((d) => d.code);
    expect(codes).toEqual(
      expect.arrayContaining(['smoke-tool-missing', 'smoke-server-failed', 'missing-env-var']),
    );
  }, 180_000);

  it('measures every native role, more than Codex runs at once', async () => {
    const natives = Array.from({ length: 7 }, (_, k) => `helper${k}`);
    const profile = `schema_version = 8
name = "many"
root = "lead"

[agents.lead]
description = "Leads"
instructions = "You lead."
native_agents = ${JSON.stringify(natives)}

[agents.lead.tool_mcp_servers.notes]
${natives.map((n) => `\n[agents.${n}]\ndescription = "Helps"\ninstructions = "You help."\n\n[agents.${n}.tool_mcp_servers.notes]\n`).join('')}`;
    const { root, pack, args } = await setup(stdioServer('notes', 'list', ['list']), profile);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root };
    const result = await runCli(['profile', 'smoke', pack, '--json', ...args], { env, home: root });
    const report = result.json<SmokeReport>();
    expect(report.ok, JSON.stringify(report.diagnostics)).toBe(true);
    for (const n of natives) {
      expect(report.roles[n]).toMatchObject({ measured: true, received: { notes: ['list'] } });
    }
  }, 180_000);

  it('reports a profile that does not compile without running Codex', async () => {
    const { root, args } = await setup('', TEAM);
    const result = await runCli(['profile', 'smoke', join(root, 'no-pack'), '--json', ...args], {
      home: root,
    });
    expect(result.code).toBe(1);
    expect(result.json<SmokeReport>().ok).toBe(false);
  });
});
