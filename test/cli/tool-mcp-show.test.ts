import { chmod, cp } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'config');

async function copyConfig(name: string): Promise<string> {
  const dir = join(await tmpDir(), 'config');
  await cp(join(fixtures, name), dir, { recursive: true });
  await chmod(join(dir, 'credentials.env'), 0o600).catch(() => undefined);
  return dir;
}

const baseEnv = { PATH: process.env.PATH ?? '', HOME: '/nonexistent-home' };

interface ShowJson {
  id: string;
  transport: string;
  ok: boolean;
  definition: Record<string, unknown>;
  file: string;
  line?: number;
  column?: number;
  replaces: string[];
  readiness: {
    ok: boolean;
    command?: { name: string; resolved?: string };
    variables: { name: string; present: boolean; origin?: string }[];
  };
  diagnostics: { code: string; severity: string; server?: string; message: string }[];
}

describe('tool-mcp show', () => {
  it('shows definition, provenance and readiness as JSON', async () => {
    const dir = await copyConfig('basic');
    const r = await runCli(['tool-mcp', 'show', 'local-echo', '--json', '--config-dir', dir], {
      env: baseEnv,
    });
    const out = r.json<ShowJson>();
    expect(out.id).toBe('local-echo');
    expect(out.transport).toBe('stdio');
    expect(out.definition).toEqual({
      transport: 'stdio',
      command: 'node',
      args: ['echo-server.mjs', '--verbose'],
      env: { LOG_LEVEL: 'debug' },
      env_vars: ['ECHO_TOKEN', 'ECHO_REGION'],
      enabled_tools: ['echo', 'reverse'],
      default_tools_approval_mode: 'writes',
      startup_timeout_sec: 12,
      tools: { reverse: { approval_mode: 'prompt' } },
    });
    expect(out.file).toBe(join(dir, 'tool-mcp.d', '10-local.toml'));
    expect([out.line, out.column]).toEqual([3, 19]); // the ID in the table header
    expect(out.replaces).toEqual([]);
    expect(out.readiness.command?.name).toBe('node');
    expect(out.readiness.command?.resolved).toMatch(/\/node$/);
    expect(out.readiness.variables).toEqual([
      { name: 'ECHO_TOKEN', present: true, origin: 'credentials.env' },
      { name: 'ECHO_REGION', present: false },
    ]);
    // ECHO_REGION is missing: an error naming server and variable, so exit 1
    expect(r.code).toBe(1);
    expect(out.ok).toBe(false);
    const missing = out.diagnostics.find((d) => d.code === 'missing-env-var')!;
    expect(missing.server).toBe('local-echo');
    expect(missing.message).toContain('ECHO_REGION');
    expect(JSON.stringify(out)).not.toContain('fixture-echo-token');
  });

  it('reports the launch environment as the origin when it sets a variable', async () => {
    const dir = await copyConfig('basic');
    const r = await runCli(['tool-mcp', 'show', 'local-echo', '--json', '--config-dir', dir], {
      env: { ...baseEnv, ECHO_TOKEN: 'env-value', ECHO_REGION: 'eu' },
    });
    expect(r.code).toBe(0);
    const out = r.json<ShowJson>();
    expect(out.ok).toBe(true);
    expect(out.readiness.variables).toEqual([
      { name: 'ECHO_TOKEN', present: true, origin: 'environment' },
      { name: 'ECHO_REGION', present: true, origin: 'environment' },
    ]);
    expect(r.stdout).not.toContain('env-value');
  });

  it('prints readable text: provenance, the definition as TOML, readiness without values', async () => {
    const dir = await copyConfig('basic');
    const r = await runCli(['tool-mcp', 'show', 'web', '--config-dir', dir], {
      env: { ...baseEnv, WEB_TOKEN: 'secret-web-token' },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('web (streamable_http)');
    expect(r.stdout).toContain(`Defined in: ${join(dir, 'tool-mcp.d', '20-remote.toml')}:3:19`);
    expect(r.stdout).toContain(`Replaces:   ${join(dir, 'tool-mcp.d', '10-local.toml')}`);
    expect(r.stdout).toContain('[tool_mcp_servers.web]');
    expect(r.stdout).toContain('url = "https://mcp.example.com/v1"');
    expect(r.stdout).toContain('[tool_mcp_servers.web.env_http_headers]');
    expect(r.stdout).toContain('Readiness: ready');
    expect(r.stdout).toMatch(/WEB_TOKEN\s+present \(environment\)/);
    expect(r.stdout).toMatch(/WEB_ORG\s+present \(credentials\.env\)/);
    expect(r.stdout).not.toContain('secret-web-token');
    expect(r.stdout).not.toContain('fixture-org');

    // the printed definition is TOML that parses back to the registry's definition
    const j = await runCli(['tool-mcp', 'show', 'web', '--json', '--config-dir', dir], {
      env: { ...baseEnv, WEB_TOKEN: 'x' },
    });
    const tomlText = r.stdout.slice(
      r.stdout.indexOf('[tool_mcp_servers.web]'),
      r.stdout.indexOf('Readiness:'),
    );
    const parsed = parse(tomlText) as { tool_mcp_servers: Record<string, unknown> };
    expect(parsed.tool_mcp_servers['web']).toEqual(j.json<ShowJson>().definition);
  });

  it('marks missing variables and an unresolvable command in text form', async () => {
    const dir = await copyConfig('basic');
    const r = await runCli(['tool-mcp', 'show', 'local-echo', '--config-dir', dir], {
      env: { PATH: '/nonexistent-bin' },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Readiness: NOT READY');
    expect(r.stdout).toMatch(/command\s+node -> NOT FOUND/);
    expect(r.stdout).toMatch(/ECHO_REGION\s+MISSING/);
    expect(r.stderr).toMatch(
      /10-local\.toml:5:\d+: error\[command-not-found\] tool_mcp_servers\.local-echo\.command:/,
    );
    expect(r.stderr).toMatch(
      /error\[missing-env-var\] tool_mcp_servers\.local-echo\.env_vars\[1\]: .*ECHO_REGION/,
    );
  });

  it('exits 1 with a did-you-mean for an unknown ID', async () => {
    const dir = await copyConfig('basic');
    const r = await runCli(['tool-mcp', 'show', 'wbe', '--config-dir', dir], { env: baseEnv });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[unknown-server]');
    expect(r.stderr).toContain("did you mean 'web'?");
    const j = await runCli(['tool-mcp', 'show', 'wbe', '--json', '--config-dir', dir], {
      env: baseEnv,
    });
    expect(j.code).toBe(1);
    expect(j.json<ShowJson>().diagnostics.map((d) => d.code)).toEqual(['unknown-server']);
  });

  it('exits 1 with the errors of an ID whose definition is invalid', async () => {
    const r = await runCli(
      ['tool-mcp', 'show', 'gooder', '--config-dir', join(fixtures, 'broken')],
      {
        env: baseEnv,
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[oauth-field]');
    expect(r.stderr).toContain("the definition of 'gooder'");
    expect(r.stdout).toBe('');
  });

  it('has --help and needs exactly one ID', async () => {
    const help = await runCli(['tool-mcp', 'show', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: codex-mmo tool-mcp show ID');
    expect((await runCli(['tool-mcp', 'show'])).code).toBe(2);
    expect((await runCli(['tool-mcp', 'show', 'a', 'b'])).code).toBe(2);
  });
});
