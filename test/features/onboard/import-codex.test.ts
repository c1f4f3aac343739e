/**
 * Reading a Codex config.toml's [mcp_servers.NAME] tables: stdio and HTTP servers become fragment
 * targets, literal secrets become variable names with their values held for moving, and every
 * key import does not know (or cannot honour, like OAuth) is reported at its line.
 */
import { describe, expect, it } from 'vitest';

import { parseCodexConfig } from '../../../src/features/onboard/import-codex.js';
import {
  candidateNamed,
  codesOf,
  FIXTURE_SECRETS,
  importFixture,
} from '../../support/import-fixtures.js';

const parsed = importFixture('codex', 'codex/config.toml');

describe('parseCodexConfig', () => {
  it('turns a literal token in env into an env_vars name, keeping non-secret values literal', () => {
    const github = candidateNamed(parsed, 'github');
    expect(github.target).toEqual({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github@2025.4.8'],
      envVars: ['GITHUB_PERSONAL_ACCESS_TOKEN', 'HTTPS_PROXY'],
      env: { LOG_LEVEL: 'info' },
    });
    expect(github.secrets.map((s) => [s.name, s.from])).toEqual([
      ['GITHUB_PERSONAL_ACCESS_TOKEN', 'mcp_servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN'],
    ]);
    expect(github.tools).toEqual(['search_repositories', 'get_file_contents', 'create_issue']);
    expect(github.excludeTools).toEqual(['create_issue']);
    expect(github.startupTimeoutSec).toBe(20);
    expect(github.source).toMatchObject({ line: 4, path: 'mcp_servers.github' });
  });

  it('moves a plaintext bearer_token and secret headers behind variables', () => {
    const docs = candidateNamed(parsed, 'docs');
    expect(docs.target).toEqual({
      transport: 'streamable_http',
      url: 'https://mcp.example.com/mcp',
      bearerTokenEnvVar: 'DOCS_TOKEN',
      headerEnv: { 'X-Api-Key': 'DOCS_X_API_KEY', 'X-Team': 'DOCS_TEAM' },
      headers: { 'X-Region': 'eu' },
    });
    expect(docs.secrets.map((s) => s.name).sort()).toEqual(['DOCS_TOKEN', 'DOCS_X_API_KEY']);
    expect(docs.approvalMode).toBe('prompt');
    expect(docs.toolTimeoutSec).toBe(60);
  });

  it('refuses OAuth, unknown keys and secrets on the command line, at their lines', () => {
    const linear = candidateNamed(parsed, 'linear');
    expect(codesOf(linear)).toEqual(['import-unsupported-auth']);
    expect(linear.diagnostics[0]).toMatchObject({ line: 23, path: 'mcp_servers.linear.scopes' });
    const typo = candidateNamed(parsed, 'typo');
    expect(codesOf(typo)).toEqual(['import-unknown-field']);
    expect(typo.diagnostics[0]?.message).toContain("(did you mean 'args'?)");
    const cli = candidateNamed(parsed, 'cli-secret');
    expect(codesOf(cli)).toEqual(['import-secret-argument']);
    expect(cli.diagnostics[0]?.path).toBe('mcp_servers.cli-secret.args[1]');
  });

  it('never puts a secret value into a diagnostic', () => {
    const text = JSON.stringify(parsed.candidates.flatMap((c) => c.diagnostics));
    for (const secret of FIXTURE_SECRETS) expect(text).not.toContain(secret);
  });

  it('reports syntax errors and a file without servers', () => {
    const bad = parseCodexConfig('[mcp_servers.x\ncommand = 1\n', '/c.toml', []);
    expect(bad.diagnostics.map((d) => [d.code, d.line])).toEqual([['import-syntax', 1]]);
    const none = parseCodexConfig('model = "x"\n', '/c.toml', []);
    expect(none.diagnostics.map((d) => d.code)).toEqual(['import-no-servers']);
  });

  it('flags enabled = false and required as ignored, and both command and url as invalid', () => {
    const out = parseCodexConfig(
      '[mcp_servers.a]\ncommand = "a"\nenabled = false\nrequired = true\n\n[mcp_servers.b]\ncommand = "b"\nurl = "https://b.example/mcp"\n',
      '/c.toml',
      [],
    );
    expect(codesOf(candidateNamed(out, 'a'))).toEqual([
      'import-field-ignored',
      'import-field-ignored',
    ]);
    expect(codesOf(candidateNamed(out, 'b'))).toEqual(['import-invalid-entry']);
  });

  it('treats the value of a known credential as a secret whatever its name', () => {
    const out = parseCodexConfig(
      '[mcp_servers.a]\ncommand = "a"\nenv = { REGION = "value-of-a-known-credential" }\n',
      '/c.toml',
      [{ name: 'MY_SECRET', value: 'value-of-a-known-credential' }],
    );
    const a = candidateNamed(out, 'a');
    expect(a.target).toMatchObject({ envVars: ['REGION'] });
    expect(a.secrets.map((s) => s.name)).toEqual(['REGION']);
  });
});
