/**
 * `tool-mcp export` in each format, and the round trip export → import: what a format can hold
 * comes back unchanged through the importer; variables stay references, never values.
 */
import { describe, expect, it } from 'vitest';

import type { RegistryEntry, ServerDefinition } from '../../../src/config/registry/types.js';
import { exportServers } from '../../../src/features/onboard/export-server.js';
import { parseImportFile } from '../../../src/features/onboard/import-plan.js';

const entry = (definition: ServerDefinition): RegistryEntry => ({
  definition,
  file: '/config/tool-mcp.d/10-x.toml',
  replaces: [],
});

const stdio = entry({
  id: 'everything',
  transport: 'stdio',
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-everything@2.0.0', 'stdio'],
  env: { LOG_LEVEL: 'info' },
  env_vars: ['EVERYTHING_TOKEN'],
  enabled_tools: ['echo', 'get-sum'],
  default_tools_approval_mode: 'writes',
  startup_timeout_sec: 20,
  tool_timeout_sec: 30,
});

const http = entry({
  id: 'research',
  transport: 'streamable_http',
  url: 'https://research.example.com/mcp',
  bearer_token_env_var: 'RESEARCH_TOKEN',
  http_headers: { 'X-Region': 'eu' },
  env_http_headers: { 'X-Team': 'RESEARCH_TEAM' },
  enabled_tools: ['search'],
  default_tools_approval_mode: 'prompt',
});

function reimport(format: 'codex' | 'claude' | 'server-json', entries: RegistryEntry[]) {
  const out = exportServers(entries, format);
  if (out.text === undefined) throw new Error(JSON.stringify(out.diagnostics));
  const parsed = parseImportFile(format, out.text, '/exported', []);
  expect(parsed.diagnostics).toEqual([]);
  return { out, parsed };
}

describe('exportServers round trip', () => {
  it('codex: every field comes back, tools and timeouts included', () => {
    const { out, parsed } = reimport('codex', [stdio, http]);
    expect(out.diagnostics).toEqual([]);
    expect(out.text).toContain('env_vars = ["EVERYTHING_TOKEN"]');
    const [a, b] = parsed.candidates;
    expect(a?.target).toEqual({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything@2.0.0', 'stdio'],
      envVars: ['EVERYTHING_TOKEN'],
      env: { LOG_LEVEL: 'info' },
    });
    expect([a?.tools, a?.approvalMode, a?.startupTimeoutSec, a?.toolTimeoutSec]).toEqual([
      ['echo', 'get-sum'],
      'writes',
      20,
      30,
    ]);
    expect(b?.target).toEqual({
      transport: 'streamable_http',
      url: 'https://research.example.com/mcp',
      bearerTokenEnvVar: 'RESEARCH_TOKEN',
      headerEnv: { 'X-Team': 'RESEARCH_TEAM' },
      headers: { 'X-Region': 'eu' },
    });
    expect(b?.diagnostics).toEqual([]);
  });

  it('claude: transports and variables come back as ${VAR}; tool lists are reported dropped', () => {
    const { out, parsed } = reimport('claude', [stdio, http]);
    expect(out.text).toContain('"EVERYTHING_TOKEN": "${EVERYTHING_TOKEN}"');
    expect(out.text).toContain('"Authorization": "Bearer ${RESEARCH_TOKEN}"');
    expect(out.diagnostics.map((d) => d.code)).toContain('export-field-dropped');
    expect(parsed.candidates.map((c) => c.target)).toEqual([
      {
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything@2.0.0', 'stdio'],
        envVars: ['EVERYTHING_TOKEN'],
        env: { LOG_LEVEL: 'info' },
      },
      {
        transport: 'streamable_http',
        url: 'https://research.example.com/mcp',
        bearerTokenEnvVar: 'RESEARCH_TOKEN',
        headerEnv: { 'X-Team': 'RESEARCH_TEAM' },
        headers: { 'X-Region': 'eu' },
      },
    ]);
    expect(parsed.candidates.flatMap((c) => c.diagnostics)).toEqual([]);
  });

  it('server-json: an npx package and a remote come back with their variables', () => {
    const pkg = reimport('server-json', [stdio]);
    expect(pkg.out.text).toContain('"registryType": "npm"');
    expect(pkg.parsed.candidates.map((c) => [c.id, c.target])).toEqual([
      [
        'everything',
        {
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-everything@2.0.0', 'stdio'],
          envVars: ['EVERYTHING_TOKEN'],
          env: { LOG_LEVEL: 'info' },
        },
      ],
    ]);
    const remote = reimport('server-json', [http]);
    expect(remote.parsed.candidates.map((c) => [c.id, c.target])).toEqual([
      [
        'research',
        {
          transport: 'streamable_http',
          url: 'https://research.example.com/mcp',
          bearerTokenEnvVar: 'RESEARCH_TOKEN',
          headerEnv: { 'X-Team': 'RESEARCH_TEAM' },
          headers: { 'X-Region': 'eu' },
        },
      ],
    ]);
  });

  it('server-json refuses a local command and an unversioned package', () => {
    const local = exportServers(
      [entry({ ...stdio.definition, command: '/opt/bin/server', args: [] } as ServerDefinition)],
      'server-json',
    );
    expect(local.text).toBeUndefined();
    expect(local.diagnostics.map((d) => d.code)).toContain('export-not-expressible');
    const unversioned = exportServers(
      [entry({ ...stdio.definition, args: ['-y', 'some-server'] } as ServerDefinition)],
      'server-json',
    );
    expect(
      unversioned.diagnostics.find((d) => d.code === 'export-not-expressible')?.message,
    ).toContain('names no version');
  });
});
