import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'config');
const basic = join(fixtures, 'basic');
const broken = join(fixtures, 'broken');

interface ListJson {
  servers: Record<string, unknown>[];
  diagnostics: { code: string; severity: string }[];
}

describe('tool-mcp list', () => {
  it('prints docs/design.md §7 JSON: id, transport, command or url, tools, approval, file, replaces', async () => {
    const r = await runCli(['tool-mcp', 'list', '--json', '--config-dir', basic]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.json<ListJson>();
    expect(out.servers).toEqual([
      {
        id: 'local-echo',
        transport: 'stdio',
        command: 'node',
        args: ['echo-server.mjs', '--verbose'],
        enabled_tools: ['echo', 'reverse'],
        default_tools_approval_mode: 'writes',
        file: join(basic, 'tool-mcp.d', '10-local.toml'),
        replaces: [],
      },
      {
        id: 'web',
        transport: 'streamable_http',
        url: 'https://mcp.example.com/v1',
        enabled_tools: ['search', 'scrape'],
        default_tools_approval_mode: 'approve',
        file: join(basic, 'tool-mcp.d', '20-remote.toml'),
        replaces: [join(basic, 'tool-mcp.d', '10-local.toml')],
      },
    ]);
    expect(out.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('prints an aligned table in text form', async () => {
    const r = await runCli(['tool-mcp', 'list', '--config-dir', basic]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const header = lines[0]!;
    for (const column of ['ID', 'TRANSPORT', 'COMMAND/URL', 'TOOLS', 'APPROVAL', 'FILE']) {
      expect(header).toContain(column);
    }
    const start = (column: string): number => header.indexOf(column);
    expect(lines[1]!.slice(start('TRANSPORT')).startsWith('stdio')).toBe(true);
    expect(lines[1]!.slice(start('COMMAND/URL')).startsWith('node echo-server.mjs --verbose')).toBe(
      true,
    );
    expect(lines[1]!.slice(start('TOOLS')).startsWith('echo,reverse')).toBe(true);
    expect(lines[1]!.slice(start('APPROVAL')).startsWith('writes')).toBe(true);
    expect(lines[1]!.slice(start('FILE'))).toBe('10-local.toml');
    expect(lines[2]!.slice(start('TRANSPORT')).startsWith('streamable_http')).toBe(true);
    expect(lines[2]!.slice(start('COMMAND/URL')).startsWith('https://mcp.example.com/v1')).toBe(
      true,
    );
    expect(lines[2]!.slice(start('FILE'))).toBe('20-remote.toml (replaces 10-local.toml)');
    for (const line of lines) expect(line).toBe(line.trimEnd());
  });

  it('says the registry is empty when tool-mcp.d is missing, and exits 0', async () => {
    const dir = await tmpDir();
    const r = await runCli(['tool-mcp', 'list', '--config-dir', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No Tool MCP servers registered');
    expect(r.stderr).toBe('');
    const j = await runCli(['tool-mcp', 'list', '--json', '--config-dir', dir]);
    expect(j.code).toBe(0);
    expect(j.json<ListJson>().servers).toEqual([]);
  });

  it('lists the valid servers of a broken registry, reports the errors, and exits 1', async () => {
    const r = await runCli(['tool-mcp', 'list', '--config-dir', broken]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^good\s+stdio\s+node\s/m);
    expect(r.stdout).not.toContain('gooder');
    expect(r.stderr).toMatch(/20-oauth\.toml:\d+:\d+: error\[oauth-field\]/);
    expect(r.stderr).toMatch(/30-syntax\.toml:\d+:\d+: error\[toml-syntax\]/);
    const j = await runCli(['tool-mcp', 'list', '--json', '--config-dir', broken]);
    expect(j.code).toBe(1);
    expect(j.stderr).toBe('');
    const out = j.json<ListJson>();
    expect(out.servers.map((s) => s['id'])).toEqual(['good']);
    expect(out.diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(['oauth-field', 'toml-syntax']),
    );
  });

  it('quotes arguments that need it and shortens long tool lists', async () => {
    const dir = await tmpDir();
    await mkdir(join(dir, 'tool-mcp.d'));
    const tools = Array.from({ length: 12 }, (_, i) => `"tool_number_${i}"`).join(', ');
    await writeFile(
      join(dir, 'tool-mcp.d', 'a.toml'),
      `schema_version = 8
[tool_mcp_servers.x]
transport = "stdio"
command = "/opt/tools/srv"
args = ["--name", "two words", "it's"]
enabled_tools = [${tools}]
default_tools_approval_mode = "prompt"
`,
    );
    const r = await runCli(['tool-mcp', 'list', '--config-dir', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("/opt/tools/srv --name 'two words' 'it'\\''s'");
    expect(r.stdout).toMatch(/ tool_number_0,tool_number_1 \+10 more /);
  });

  it('has --help and rejects extra arguments with exit 2', async () => {
    const help = await runCli(['tool-mcp', 'list', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: codex-mmo tool-mcp list');
    expect(help.stdout).toContain('--config-dir');
    const extra = await runCli(['tool-mcp', 'list', 'surplus']);
    expect(extra.code).toBe(2);
    const unknown = await runCli(['tool-mcp', 'list', '--bogus']);
    expect(unknown.code).toBe(2);
  });
});
