/**
 * Merging fragments: byte-wise load order, whole-entry replacement (also across a transport
 * change), provenance, fail-closed handling of invalid winners, and normalised definitions.
 */
import { describe, expect, it } from 'vitest';

import { hasErrors } from '../../../src/foundation/diagnostics/diagnostic.js';
import {
  buildRegistry,
  compareFragmentFiles,
} from '../../../src/config/registry/build-registry.js';
import type { FragmentSource, StdioDefinition } from '../../../src/config/registry/types.js';
import { validateFragment } from '../../../src/config/registry/validate-fragment.js';
import { SPEC_EXAMPLE } from '../../support/registry-helpers.js';

const encoder = new TextEncoder();
const source = (file: string, text: string): FragmentSource => ({
  file,
  bytes: encoder.encode(text),
});

const stdio = (id: string, command = 'srv', extra = ''): string => `
[tool_mcp_servers.${id}]
transport = "stdio"
command = "${command}"
enabled_tools = ["a"]
default_tools_approval_mode = "auto"
${extra}`;

describe('buildRegistry', () => {
  it('normalises both spec examples, with only present fields in a stable order', () => {
    const registry = buildRegistry([source('/cfg/tool-mcp.d/00-spec.toml', SPEC_EXAMPLE)]);
    expect(registry.diagnostics).toEqual([]);
    const firecrawl = registry.servers.get('firecrawl');
    const ida = registry.servers.get('ida_pro');
    expect(firecrawl?.definition).toEqual({
      id: 'firecrawl',
      transport: 'streamable_http',
      url: 'https://mcp.example.invalid/',
      bearer_token_env_var: 'FIRECRAWL_API_KEY',
      enabled_tools: ['search', 'scrape'],
      default_tools_approval_mode: 'writes',
      startup_timeout_sec: 15,
      tool_timeout_sec: 120,
      tools: { scrape: { approval_mode: 'prompt' } },
    });
    expect(Object.keys(firecrawl?.definition ?? {})).toEqual([
      'id',
      'transport',
      'url',
      'bearer_token_env_var',
      'enabled_tools',
      'default_tools_approval_mode',
      'startup_timeout_sec',
      'tool_timeout_sec',
      'tools',
    ]);
    expect(ida?.definition).toEqual({
      id: 'ida_pro',
      transport: 'stdio',
      command: 'ida-pro-mcp',
      args: [],
      env_vars: ['IDA_MCP_TOKEN'],
      enabled_tools: ['list_functions', 'decompile'],
      default_tools_approval_mode: 'writes',
    });
    expect(Object.values(ida?.definition ?? {})).not.toContain(undefined);
    expect(firecrawl).toMatchObject({ file: '/cfg/tool-mcp.d/00-spec.toml', line: 3, column: 19 });
    expect(firecrawl?.replaces).toEqual([]);
    expect(firecrawl?.positions?.lookup(['tool_mcp_servers', 'firecrawl', 'url'])).toEqual({
      line: 5,
      column: 1,
    });
    expect(registry.statuses).toEqual([
      {
        id: 'firecrawl',
        transport: 'streamable_http',
        file: '/cfg/tool-mcp.d/00-spec.toml',
        ok: true,
      },
      { id: 'ida_pro', transport: 'stdio', file: '/cfg/tool-mcp.d/00-spec.toml', ok: true },
    ]);
  });

  it('orders fragments byte-wise by file name, whatever order they are given in', () => {
    const registry = buildRegistry([
      source('/d/9-b.toml', `schema_version = 8\n${stdio('alpha', 'from-9-b')}`),
      source('/d/10-a.toml', `schema_version = 8\n${stdio('alpha', 'from-10-a')}`),
    ]);
    expect(registry.files).toEqual(['/d/10-a.toml', '/d/9-b.toml']);
    const alpha = registry.servers.get('alpha');
    expect((alpha?.definition as StdioDefinition).command).toBe('from-9-b');
    expect(alpha?.file).toBe('/d/9-b.toml');
    expect(alpha?.replaces).toEqual(['/d/10-a.toml']);
  });

  it('compares names as UTF-8 bytes, not by locale or directory', () => {
    const names = ['/x/a.toml', '/x/B.toml', '/x/é.toml', '/x/z.toml', '/a/zz.toml', '/x/_.toml'];
    expect([...names].sort(compareFragmentFiles)).toEqual([
      '/x/B.toml',
      '/x/_.toml',
      '/x/a.toml',
      '/x/z.toml',
      '/a/zz.toml',
      '/x/é.toml',
    ]);
  });

  it('replaces the whole entry across a transport change and records provenance', () => {
    const registry = buildRegistry([
      source(
        '/d/10-base.toml',
        `schema_version = 8\n${stdio(
          'alpha',
          'srv',
          'args = ["--x"]\ncwd = "/tmp"\nenv = { MODE = "1" }\nenv_vars = ["A"]\nstartup_timeout_sec = 99\nsupports_parallel_tool_calls = true\n[tool_mcp_servers.alpha.tools.a]\napproval_mode = "prompt"\n',
        )}`,
      ),
      source(
        '/d/20-http.toml',
        `schema_version = 8\n[tool_mcp_servers.alpha]\ntransport = "streamable_http"\nurl = "https://alpha.example.invalid/"\nenabled_tools = ["b"]\ndefault_tools_approval_mode = "prompt"\n`,
      ),
    ]);
    expect(hasErrors(registry.diagnostics)).toBe(false);
    const alpha = registry.servers.get('alpha');
    expect(alpha?.definition).toEqual({
      id: 'alpha',
      transport: 'streamable_http',
      url: 'https://alpha.example.invalid/',
      enabled_tools: ['b'],
      default_tools_approval_mode: 'prompt',
    });
    expect(alpha?.file).toBe('/d/20-http.toml');
    expect(alpha?.replaces).toEqual(['/d/10-base.toml']);
    expect(registry.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'info',
        code: 'server-replaced',
        file: '/d/20-http.toml',
        line: 2,
        column: 19,
        path: 'tool_mcp_servers.alpha',
        server: 'alpha',
      }),
    ]);
    expect(registry.diagnostics[0]?.message).toContain('/d/10-base.toml');
  });

  it('lists every replaced file in load order', () => {
    const registry = buildRegistry([
      source('/d/c.toml', `schema_version = 8\n${stdio('alpha', 'c')}`),
      source('/d/a.toml', `schema_version = 8\n${stdio('alpha', 'a')}`),
      source('/d/b.toml', `schema_version = 8\n${stdio('alpha', 'b')}${stdio('beta')}`),
    ]);
    const alpha = registry.servers.get('alpha');
    expect(alpha?.replaces).toEqual(['/d/a.toml', '/d/b.toml']);
    expect((alpha?.definition as StdioDefinition).command).toBe('c');
    expect(registry.servers.get('beta')?.replaces).toEqual([]);
    expect(registry.diagnostics.map((d) => `${d.file} ${d.code}`)).toEqual([
      '/d/b.toml server-replaced',
      '/d/c.toml server-replaced',
    ]);
  });

  it('fails closed: an invalid winning definition removes the ID, even over a valid one', () => {
    const registry = buildRegistry([
      source('/d/10.toml', `schema_version = 8\n${stdio('alpha')}${stdio('beta')}`),
      source('/d/20.toml', `schema_version = 8\n${stdio('alpha', './relative')}`),
    ]);
    expect([...registry.servers.keys()]).toEqual(['beta']);
    expect(registry.statuses).toEqual([
      { id: 'alpha', transport: 'stdio', file: '/d/20.toml', ok: false },
      { id: 'beta', transport: 'stdio', file: '/d/10.toml', ok: true },
    ]);
    expect(registry.diagnostics.map((d) => d.code)).toEqual(['server-replaced', 'relative-path']);
  });

  it('still reports the problems of a replaced, invalid definition', () => {
    const registry = buildRegistry([
      source('/d/10.toml', `schema_version = 8\n${stdio('alpha', 'srv', 'oauth = {}\n')}`),
      source('/d/20.toml', `schema_version = 8\n${stdio('alpha')}`),
    ]);
    expect(registry.servers.has('alpha')).toBe(true);
    expect(registry.diagnostics.map((d) => `${d.file} ${d.code}`)).toEqual([
      '/d/10.toml oauth-field',
      '/d/20.toml server-replaced',
    ]);
  });

  it('fails closed for IDs of a fragment that does not parse', () => {
    const registry = buildRegistry([
      source('/d/10.toml', `schema_version = 8\n${stdio('alpha')}${stdio('beta')}`),
      source(
        '/d/20.toml',
        `schema_version = 8\n[tool_mcp_servers.alpha]\ncommand = "x\ntool_mcp_servers."quoted-id" = 1\n`,
      ),
    ]);
    expect([...registry.servers.keys()]).toEqual(['beta']);
    expect(registry.statuses.find((s) => s.id === 'alpha')).toEqual({
      id: 'alpha',
      file: '/d/20.toml',
      ok: false,
    });
    expect(registry.diagnostics.map((d) => d.code)).toEqual(['server-replaced', 'toml-syntax']);
  });

  it('marks every server of a fragment with a wrong schema version invalid', () => {
    const registry = buildRegistry([
      source('/d/a.toml', `schema_version = 7\n${stdio('alpha')}`),
      source('/d/b.toml', stdio('beta')),
    ]);
    expect(registry.servers.size).toBe(0);
    expect(registry.statuses.map((s) => [s.id, s.ok])).toEqual([
      ['alpha', false],
      ['beta', false],
    ]);
    expect(registry.diagnostics.map((d) => d.code)).toEqual([
      'schema-version-unsupported',
      'schema-version-missing',
    ]);
  });

  it('collects the problems of every fragment in one run, in load order', () => {
    const registry = buildRegistry([
      source('/d/b.toml', `schema_version = 8\n${stdio('beta', 'srv', 'bearer_token = "x"\n')}`),
      source('/d/a.toml', `schema_version = 8\n${stdio('alpha', 'srv', 'required = true\n')}`),
      source('/d/c.toml', ''),
    ]);
    expect(registry.diagnostics.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual([
      '/d/a.toml:8 grant-owned-field',
      '/d/b.toml:8 plaintext-bearer-token',
      '/d/c.toml:1 schema-version-missing',
    ]);
  });

  it('sorts servers and statuses by ID', () => {
    const registry = buildRegistry([
      source('/d/a.toml', `schema_version = 8\n${stdio('zeta')}${stdio('alpha')}${stdio('mid-1')}`),
    ]);
    expect([...registry.servers.keys()]).toEqual(['alpha', 'mid-1', 'zeta']);
    expect(registry.statuses.map((s) => s.id)).toEqual(['alpha', 'mid-1', 'zeta']);
  });

  it('builds an empty registry from no fragments', () => {
    expect(buildRegistry([])).toEqual({
      servers: new Map(),
      statuses: [],
      files: [],
      diagnostics: [],
    });
  });
});

describe('validateFragment', () => {
  it('returns the entries in the order written, with their table positions', () => {
    const result = validateFragment(
      source('/d/a.toml', `schema_version = 8\n${stdio('zeta')}${stdio('Bad')}`),
    );
    expect(result.parsed).toBe(true);
    expect(result.servers.map((s) => [s.id, s.ok, s.line, s.column])).toEqual([
      ['zeta', true, 3, 19],
      ['Bad', false, 9, 19],
    ]);
    expect(result.servers[0]?.definition?.id).toBe('zeta');
    expect(result.servers[1]?.definition).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['invalid-server-id']);
  });

  it('gives the position of the key a diagnostic is about, not of its table', () => {
    const result = validateFragment(
      source(
        '/d/a.toml',
        'schema_version = 8\n[tool_mcp_servers.x]\ntransport = "stdio"\ncommand = "srv"\n  enabled_tools = ["ok", "ok"]\ndefault_tools_approval_mode = "auto"\n',
      ),
    );
    expect(result.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'duplicate-entry',
        message: expect.stringContaining('enabled_tools') as string,
        file: '/d/a.toml',
        line: 5,
        column: 26,
        path: 'tool_mcp_servers.x.enabled_tools[1]',
        server: 'x',
      },
    ]);
  });
});
