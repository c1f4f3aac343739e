/**
 * Reading MCP registry server.json files: npm, PyPI and OCI packages become npx, uvx and docker
 * commands; remotes become URLs with their secret headers as variables; schema 2025-07-09's
 * snake_case fields are read; an unknown `$schema` is refused.
 */
import { describe, expect, it } from 'vitest';

import { idFromName, parseServerJson } from '../../../src/features/onboard/import-server-json.js';
import { candidateNamed, codesOf, importFixture } from '../../support/import-fixtures.js';

const current = importFixture('server-json', 'server-json/current.json');

describe('parseServerJson', () => {
  it('makes one candidate per package and remote, with IDs from the server name', () => {
    expect(current.candidates.map((c) => c.id)).toEqual([
      'weather-npm',
      'weather-oci',
      'weather-mcpb',
      'weather-remote',
      'weather-remote-2',
    ]);
    expect(current.candidates.every((c) => c.name === 'io.github.example/weather')).toBe(true);
  });

  it('runs an npm package through npx with its arguments, secret variables as env_vars', () => {
    const npm = candidateNamed(current, 'weather-npm');
    expect(npm.target).toEqual({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@example/weather-mcp@1.4.0', 'serve', '--units', 'metric'],
      envVars: ['WEATHER_API_KEY'],
      env: { WEATHER_REGION: 'eu-west' },
    });
    // the optional --station has no value: left out with a warning
    expect(codesOf(npm)).toEqual(['import-field-ignored']);
  });

  it('runs an OCI image through docker run, forwarding its variables', () => {
    expect(candidateNamed(current, 'weather-oci').target).toMatchObject({
      command: 'docker',
      args: ['run', '-i', '--rm', '-e', 'WEATHER_API_KEY', 'ghcr.io/example/weather:1.4.0'],
      envVars: ['WEATHER_API_KEY'],
    });
  });

  it('refuses mcpb packages and sse remotes; reads Bearer {VAR} headers', () => {
    expect(codesOf(candidateNamed(current, 'weather-mcpb'))).toEqual([
      'import-unsupported-transport',
    ]);
    expect(codesOf(candidateNamed(current, 'weather-remote-2'))).toEqual([
      'import-unsupported-transport',
    ]);
    expect(candidateNamed(current, 'weather-remote').target).toEqual({
      transport: 'streamable_http',
      url: 'https://weather.example.com/mcp',
      bearerTokenEnvVar: 'WEATHER_TOKEN',
      headerEnv: {},
      headers: { 'X-Client': 'codex-mmo' },
    });
  });

  it('reads the snake_case fields of schema 2025-07-09', () => {
    const legacy = importFixture('server-json', 'server-json/legacy-2025-07-09.json');
    expect(legacy.diagnostics).toEqual([]);
    expect(legacy.candidates.map((c) => [c.id, c.target])).toEqual([
      [
        'time_server',
        {
          transport: 'stdio',
          command: 'uvx',
          args: ['mcp-server-time==0.9.0', '--local-timezone', 'UTC'],
          envVars: ['TIME_API_TOKEN'],
        },
      ],
    ]);
  });

  it('refuses an unknown or missing $schema with the versions it knows', () => {
    const unknown = importFixture('server-json', 'server-json/unknown-schema.json');
    expect(unknown.candidates).toEqual([]);
    expect(unknown.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['import-schema-unknown', 2],
    ]);
    expect(unknown.diagnostics[0]?.message).toContain('2025-09-29');
    const missing = parseServerJson('{"name": "x/y", "packages": []}', '/s.json', []);
    expect(missing.diagnostics.map((d) => d.code)).toEqual(['import-schema-unknown']);
  });

  it('refuses secret and placeholder arguments, and unwraps a registry API answer', () => {
    const doc = {
      server: {
        $schema: 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json',
        name: 'io.example/tool',
        packages: [
          {
            registryType: 'npm',
            identifier: 'tool',
            version: '1.0.0',
            transport: { type: 'stdio' },
            packageArguments: [
              { type: 'named', name: '--key', isSecret: true },
              { type: 'positional', value: '{dir}', variables: { dir: {} } },
              { type: 'positional', isRequired: true, valueHint: 'path' },
            ],
          },
        ],
      },
    };
    const out = parseServerJson(JSON.stringify(doc), '/s.json', []);
    expect(codesOf(candidateNamed(out, 'tool'))).toEqual([
      'import-secret-argument',
      'import-argument-needs-value',
      'import-argument-needs-value',
    ]);
  });

  it('suggests IDs from reverse-DNS names', () => {
    expect(idFromName('io.github.user/My Server')).toBe('my-server');
    expect(idFromName('com.example/9lives')).toBe('lives');
  });
});
