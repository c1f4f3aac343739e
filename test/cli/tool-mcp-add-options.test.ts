/**
 * The `tool-mcp add` spellings other MCP clients use, against real servers: `--transport`, a URL
 * after the ID, `-e KEY` / `-e KEY=value`, `-H 'Name: value'` with `$VAR` references, and
 * `--replace`. A literal secret is refused without being echoed and without changing a file.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { runCli, type CliResult } from '../support/cli.js';
import { useEverythingHttp } from '../support/everything-http.js';
import { launchEnv, workspace, type Workspace } from '../support/probe-helpers.js';

const ECHO = resolve('test/fixtures/servers/echo-server.mjs');

interface AddJson {
  ok: boolean;
  written: boolean;
  file: string;
  server?: Record<string, unknown> & { enabled_tools: string[] };
  pinned?: { name: string }[];
  diagnostics: { code: string; message: string }[];
}

/** Every file under `dir` with its text, for "nothing changed". */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      out[path] = await readFile(path, 'utf8');
    }
  }
  return out;
}

/** `codex-mmo tool-mcp add ARGS` with --config-dir and --json before any `--`. */
function add(ws: Workspace, args: readonly string[], env = launchEnv(ws)): Promise<CliResult> {
  const split = args.indexOf('--');
  const own = split === -1 ? args : args.slice(0, split);
  const rest = split === -1 ? [] : args.slice(split);
  return runCli(['tool-mcp', 'add', ...own, '--config-dir', ws.configDir, '--json', ...rest], {
    env,
    home: ws.home,
    cwd: ws.root,
  });
}

const codes = (r: CliResult): string[] => r.json<AddJson>().diagnostics.map((d) => d.code);

describe('tool-mcp add -e', () => {
  it('-e KEY forwards a credential variable (env_vars), -e KEY=value writes a literal (env)', async () => {
    const ws = await workspace();
    const secret = 'canary-forwarded-value-8812';
    await ws.credentials(`ECHO_SECRET=${secret}\n`);
    const r = await add(ws, [
      'echo',
      '-e',
      'ECHO_SECRET',
      '--env',
      'MODE=plain',
      '--',
      process.execPath,
      ECHO,
      '--tools',
      'a,b',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = r.json<AddJson>();
    expect(out.server).toMatchObject({ env_vars: ['ECHO_SECRET'], env: { MODE: 'plain' } });
    expect(out.server?.enabled_tools).toEqual(['a', 'b']);
    const text = await readFile(out.file, 'utf8');
    expect(text).toContain('env_vars = ["ECHO_SECRET"]');
    for (const shown of [r.stdout, r.stderr, text]) expect(shown).not.toContain(secret);
  });

  it('refuses -e KEY=value when the name or value looks like a credential, echoing nothing', async () => {
    const ws = await workspace();
    const before = await tree(ws.configDir);
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    for (const pair of [`MODE=${token}`, 'API_TOKEN=plain-value-77']) {
      const r = await add(ws, ['echo', '-e', pair, '--', process.execPath, ECHO]);
      expect(r.code, pair).toBe(1);
      const out = r.json<AddJson>();
      expect(out.written).toBe(false);
      expect(codes(r)).toContain('add-literal-secret');
      // said once, in the command line's words, not again by the registry validator
      expect(codes(r)).not.toContain('credential-literal-value');
      expect(codes(r)).not.toContain('credential-literal-name');
      const message = out.diagnostics.find((d) => d.code === 'add-literal-secret')?.message;
      expect(message).toMatch(/pass `-e (MODE|API_TOKEN)` instead/);
      expect(r.stdout + r.stderr).not.toContain(token);
      expect(r.stdout + r.stderr).not.toContain('plain-value-77');
    }
    expect(await tree(ws.configDir)).toEqual(before);
  });

  it('accepts codex mcp add spelling: --env KEY=VALUE -- COMMAND ARGS', async () => {
    const ws = await workspace();
    const r = await add(ws, ['cx', '--env', 'LEVEL=debug', '--', process.execPath, ECHO]);
    expect(r.code, r.stdout).toBe(0);
    const server = r.json<AddJson>().server;
    expect(server).toMatchObject({ env: { LEVEL: 'debug' } });
    expect(server?.env_vars ?? []).toEqual([]);
  });
});

describe('tool-mcp add --transport http and -H', () => {
  const everything = useEverythingHttp();
  let ws: Workspace;
  const token = 'canary-bearer-token-7c31';
  const team = 'canary-team-header-4410';
  beforeAll(async () => {
    ws = await workspace();
    await ws.credentials(`EVERY_TOKEN=${token}\nTEAM_ID=${team}\n`);
  });
  const url = (): string => `http://127.0.0.1:${everything.port}/mcp`;

  it('claude mcp add spelling: --transport http ID URL -H with $VAR and ${VAR}', async () => {
    const r = await add(ws, [
      '--transport',
      'http',
      'every',
      url(),
      '-H',
      'Authorization: Bearer $EVERY_TOKEN',
      '-H',
      'X-Team: ${TEAM_ID}',
      '-H',
      'X-Plain: hello',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = r.json<AddJson>();
    expect(out.server).toMatchObject({
      transport: 'streamable_http',
      url: url(),
      bearer_token_env_var: 'EVERY_TOKEN',
      env_http_headers: { 'X-Team': 'TEAM_ID' },
      http_headers: { 'X-Plain': 'hello' },
    });
    const sent = (await readFile(everything.headersFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(sent.length).toBeGreaterThan(0);
    for (const headers of sent) {
      expect(headers.authorization).toBe(`Bearer ${token}`);
      expect(headers['x-team']).toBe(team);
      expect(headers['x-plain']).toBe('hello');
    }
    const text = await readFile(out.file, 'utf8');
    for (const shown of [r.stdout, r.stderr, text]) {
      expect(shown).not.toContain(token);
      expect(shown).not.toContain(team);
    }
  });

  it('--transport streamable_http with --url, and -t http with Name=value headers', async () => {
    const a = await add(ws, ['every-a', '--transport', 'streamable_http', '--url', url()]);
    expect(a.code, a.stdout).toBe(0);
    const b = await add(ws, ['-t', 'http', 'every-b', url(), '--header', 'X-Plain=yes']);
    expect(b.code, b.stdout).toBe(0);
    expect(b.json<AddJson>().server).toMatchObject({ http_headers: { 'X-Plain': 'yes' } });
  });

  it('refuses a literal secret header with the -H $VAR spelling, echoing nothing', async () => {
    const before = await tree(ws.configDir);
    const key = 'sk-live-abcdefghijklmnopqrstuvwx0123';
    const r = await add(ws, ['leaky', url(), '-H', `X-Api-Key: ${key}`]);
    expect(r.code).toBe(1);
    const message = r.json<AddJson>().diagnostics.find((d) => d.code === 'add-literal-secret');
    expect(message?.message).toContain("-H 'X-Api-Key: $X_API_KEY'");
    const bearer = await add(ws, ['leaky', url(), '-H', `Authorization: Bearer ${key}`]);
    expect(bearer.code).toBe(1);
    expect(
      bearer.json<AddJson>().diagnostics.find((d) => d.code === 'add-literal-secret')?.message,
    ).toContain("-H 'Authorization: Bearer $AUTHORIZATION'");
    for (const shown of [r.stdout, r.stderr, bearer.stdout, bearer.stderr]) {
      expect(shown).not.toContain(key);
    }
    expect(await tree(ws.configDir)).toEqual(before);
  });

  it('usage errors: contradictions and headers that mix text with a variable', async () => {
    const cases: [string[], string][] = [
      [['x', '--transport', 'stdio', url()], '--transport stdio takes -- COMMAND, not a URL'],
      [['x', '--transport', 'http'], '--transport http needs the URL'],
      [['x', '--transport', 'sse', url()], 'Codex does not speak SSE'],
      [['x', url(), '-H', 'X-Key: pre-$KEY'], 'mixes text with a variable'],
      [['x', url(), '-e', 'FOO'], 'are for stdio servers'],
      [['x', 'not-a-url'], "a stdio server's command goes after '--'"],
      [['x', url(), '--url', url()], 'give the URL once'],
      [['x', '-H', 'X-A: 1', '--', 'cmd'], 'are for HTTP servers'],
    ];
    for (const [args, message] of cases) {
      const r = await add(ws, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toContain(message);
    }
  });
});

describe('tool-mcp add --replace', () => {
  it('refuses a taken ID naming --replace, then replaces it everywhere it is defined', async () => {
    const ws = await workspace();
    await ws.fragment(
      '10-hand.toml',
      `[tool_mcp_servers.keep]\ntransport = "stdio"\ncommand = "true"\nenabled_tools = ["x"]\ndefault_tools_approval_mode = "prompt"\n\n[tool_mcp_servers.ev]\ntransport = "stdio"\ncommand = "true"\nenabled_tools = ["old"]\ndefault_tools_approval_mode = "prompt"\n`,
    );
    const before = await tree(ws.configDir);
    const server = ['--', process.execPath, ECHO, '--tools', 'a,b'];
    const taken = await add(ws, ['ev', ...server]);
    expect(taken.code).toBe(1);
    const exists = taken.json<AddJson>().diagnostics.find((d) => d.code === 'add-server-exists');
    expect(exists?.message).toContain('--replace');
    expect(await tree(ws.configDir)).toEqual(before);

    // a replacement that cannot start changes nothing either
    const broken = await add(ws, ['ev', '--replace', '--', 'no-such-mcp-server-binary']);
    expect(broken.code).toBe(1);
    expect(await tree(ws.configDir)).toEqual(before);

    const replaced = await add(ws, ['ev', '--replace', ...server]);
    expect(replaced.code, replaced.stdout).toBe(0);
    const out = replaced.json<AddJson>();
    expect(out.server?.enabled_tools).toEqual(['a', 'b']);
    expect(out.pinned?.map((t) => t.name)).toEqual(['a', 'b']);
    const hand = await readFile(join(ws.configDir, 'tool-mcp.d', '10-hand.toml'), 'utf8');
    expect(hand).toContain('[tool_mcp_servers.keep]');
    expect(hand).not.toContain('tool_mcp_servers.ev');
    const list = await runCli(['tool-mcp', 'list', '--config-dir', ws.configDir, '--json']);
    const servers = list.json<{ servers: { id: string; file: string }[] }>().servers;
    expect(servers.map((s) => [s.id, s.file.split('/').pop()])).toEqual([
      ['ev', '50-ev.toml'],
      ['keep', '10-hand.toml'],
    ]);

    // replacing the added fragment itself rewrites it and its pin
    const again = await add(ws, ['ev', '--replace', '--', process.execPath, ECHO, '--tools', 'c']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.json<AddJson>().pinned?.map((t) => t.name)).toEqual(['c']);
  });
});
