import { chmod, cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(import.meta.dirname, '..', 'fixtures', 'config');
const broken = join(fixtures, 'broken');

async function copyConfig(name: string, mode = 0o600): Promise<string> {
  const dir = join(await tmpDir(), 'config');
  await cp(join(fixtures, name), dir, { recursive: true });
  await chmod(join(dir, 'credentials.env'), mode).catch(() => undefined);
  return dir;
}

const PATH = process.env.PATH ?? '';

interface ValidateJson {
  ok: boolean;
  diagnostics: {
    severity: string;
    code: string;
    message: string;
    file?: string;
    line?: number;
    column?: number;
    path?: string;
    server?: string;
  }[];
  servers: { id: string; transport?: string; file: string; ok: boolean }[];
}

describe('tool-mcp validate', () => {
  it('passes a valid, ready registry with exit 0 (JSON shape of docs/design.md §7)', async () => {
    const dir = await copyConfig('basic');
    const r = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', dir], {
      env: { PATH, ECHO_REGION: 'eu', WEB_TOKEN: 't' },
    });
    expect(r.code).toBe(0);
    const out = r.json<ValidateJson>();
    expect(Object.keys(out)).toEqual(['ok', 'diagnostics', 'servers']);
    expect(out.ok).toBe(true);
    expect(out.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(out.servers).toEqual([
      {
        id: 'local-echo',
        transport: 'stdio',
        file: join(dir, 'tool-mcp.d', '10-local.toml'),
        ok: true,
      },
      {
        id: 'web',
        transport: 'streamable_http',
        file: join(dir, 'tool-mcp.d', '20-remote.toml'),
        ok: true,
      },
    ]);
    const text = await runCli(['tool-mcp', 'validate', '--config-dir', dir], {
      env: { PATH, ECHO_REGION: 'eu', WEB_TOKEN: 't' },
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^local-echo\s+stdio\s+ok\s+10-local\.toml$/m);
    expect(text.stdout).toContain('registry is valid and ready (2 servers)');
  });

  it('fails on missing variables with errors naming server and variable at their keys', async () => {
    const dir = await copyConfig('basic');
    const r = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', dir], {
      env: { PATH },
    });
    expect(r.code).toBe(1);
    const out = r.json<ValidateJson>();
    expect(out.ok).toBe(false);
    const missing = out.diagnostics.filter((d) => d.code === 'missing-env-var');
    expect(missing.map((d) => [d.server, d.path, d.line, d.column])).toEqual([
      ['local-echo', 'tool_mcp_servers.local-echo.env_vars[1]', 7, 27],
      ['web', 'tool_mcp_servers.web.bearer_token_env_var', 6, 1],
    ]);
    expect(missing[0]!.message).toContain('ECHO_REGION');
    expect(missing[1]!.message).toContain('WEB_TOKEN');
    expect(out.servers.map((s) => [s.id, s.ok])).toEqual([
      ['local-echo', false],
      ['web', false],
    ]);
    const text = await runCli(['tool-mcp', 'validate', '--config-dir', dir], { env: { PATH } });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(
      `${join(dir, 'tool-mcp.d', '10-local.toml')}:7:27: error[missing-env-var] tool_mcp_servers.local-echo.env_vars[1]:`,
    );
    expect(text.stderr).toContain('2 errors');
    expect(text.stdout).toContain('registry has 2 errors (2 servers)');
  });

  it('validates one server: its own diagnostics plus fragment problems that may affect it', async () => {
    const good = await runCli(['tool-mcp', 'validate', 'good', '--json', '--config-dir', broken], {
      env: { PATH },
    });
    const out = good.json<ValidateJson>();
    expect(out.servers.map((s) => s.id)).toEqual(['good']);
    // the other fragments' errors concern gooder and third, not good
    expect(out.diagnostics).toEqual([]);
    expect(good.code).toBe(0);

    const third = await runCli(
      ['tool-mcp', 'validate', 'third', '--json', '--config-dir', broken],
      {
        env: { PATH },
      },
    );
    expect(third.code).toBe(1);
    expect(third.json<ValidateJson>().diagnostics.map((d) => d.code)).toEqual(['toml-syntax']);

    const gooder = await runCli(
      ['tool-mcp', 'validate', 'gooder', '--json', '--config-dir', broken],
      {
        env: { PATH },
      },
    );
    const codes = gooder.json<ValidateJson>().diagnostics.map((d) => d.code);
    expect(codes).toContain('oauth-field');
    expect(gooder.json<ValidateJson>().servers).toEqual([
      expect.objectContaining({ id: 'gooder', ok: false }),
    ]);

    const dir = await copyConfig('basic');
    const web = await runCli(['tool-mcp', 'validate', 'web', '--json', '--config-dir', dir], {
      env: { PATH, WEB_TOKEN: 't' },
    });
    // local-echo's missing ECHO_REGION does not concern web
    expect(web.code).toBe(0);
    expect(web.json<ValidateJson>().servers.map((s) => [s.id, s.ok])).toEqual([['web', true]]);
  });

  it('reports the whole broken registry in one run with positions', async () => {
    const r = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', broken], {
      env: { PATH },
    });
    expect(r.code).toBe(1);
    const out = r.json<ValidateJson>();
    const oauth = out.diagnostics.find((d) => d.code === 'oauth-field')!;
    expect(oauth).toMatchObject({
      file: join(broken, 'tool-mcp.d', '20-oauth.toml'),
      line: 6,
      column: 1,
      path: 'tool_mcp_servers.gooder.oauth',
      server: 'gooder',
    });
    expect(out.diagnostics.find((d) => d.code === 'toml-syntax')).toMatchObject({
      file: join(broken, 'tool-mcp.d', '30-syntax.toml'),
      line: expect.any(Number) as unknown,
    });
    expect(out.servers.map((s) => [s.id, s.ok])).toEqual([
      ['good', true],
      ['gooder', false],
      ['third', false],
    ]);
  });

  it('warns about a group/other-readable credentials.env but still passes', async () => {
    const dir = await copyConfig('basic', 0o644);
    const r = await runCli(['tool-mcp', 'validate', '--config-dir', dir], {
      env: { PATH, ECHO_REGION: 'eu', WEB_TOKEN: 't' },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning[credentials-file-permissions]');
    expect(r.stderr).toContain(`chmod 600 ${join(dir, 'credentials.env')}`);
    expect(r.stdout).toContain('1 warning');
  });

  it('exits 1 with a suggestion for an unknown ID', async () => {
    const dir = await copyConfig('basic');
    const r = await runCli(['tool-mcp', 'validate', 'local_echo', '--json', '--config-dir', dir], {
      env: { PATH },
    });
    expect(r.code).toBe(1);
    const out = r.json<ValidateJson>();
    expect(out.servers).toEqual([]);
    expect(out.diagnostics[0]).toMatchObject({ code: 'unknown-server', server: 'local_echo' });
    expect(out.diagnostics[0]!.message).toContain("did you mean 'local-echo'?");
  });

  it('is valid (and says so) for a missing tool-mcp.d', async () => {
    const dir = await tmpDir();
    const r = await runCli(['tool-mcp', 'validate', '--config-dir', dir], { env: { PATH } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('registry is valid and ready (0 servers)');
  });

  it('has --help and takes at most one ID', async () => {
    const help = await runCli(['tool-mcp', 'validate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: codex-mmo tool-mcp validate [ID]');
    expect((await runCli(['tool-mcp', 'validate', 'a', 'b'])).code).toBe(2);
  });
});

describe('the shipped example configuration', () => {
  it('is valid and ready with node_modules/.bin on PATH, naming tools the server really has', async () => {
    const dir = join(await tmpDir(), 'config');
    await cp(join(root, 'examples', 'config'), dir, { recursive: true });
    await chmod(join(dir, 'credentials.env'), 0o600);
    const r = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', dir], {
      env: { PATH: `${join(root, 'node_modules', '.bin')}:${PATH}` },
    });
    const out = r.json<ValidateJson>();
    expect(out.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(r.code).toBe(0);
    expect(out.servers.map((s) => [s.id, s.transport, s.ok])).toEqual([
      ['everything', 'stdio', true],
      ['research', 'streamable_http', true],
    ]);

    // every enabled tool is one the everything server registers
    const toolsDir = join(
      root,
      'node_modules',
      '@modelcontextprotocol',
      'server-everything',
      'dist',
      'tools',
    );
    const names = new Set<string>();
    for (const file of await readdir(toolsDir)) {
      const match = /const name = "([^"]+)"/.exec(await readFile(join(toolsDir, file), 'utf8'));
      if (match) names.add(match[1]!);
    }
    const list = await runCli(['tool-mcp', 'list', '--json', '--config-dir', dir]);
    const servers = list.json<{ servers: { enabled_tools: string[] }[] }>().servers;
    for (const server of servers) {
      for (const tool of server.enabled_tools) expect(names).toContain(tool);
    }
  });
});
