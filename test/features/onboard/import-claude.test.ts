/**
 * Reading Claude Code's MCP files: `.mcp.json` and `~/.claude.json` (top-level and per-project
 * servers). `${VAR}` and `${VAR:-default}` become variable names or literal defaults, never
 * expanded; SSE, references inside text and unknown keys are refused with their lines.
 */
import { describe, expect, it } from 'vitest';

import { parseClaudeConfig } from '../../../src/features/onboard/import-claude.js';
import {
  candidateNamed,
  codesOf,
  FIXTURE_SECRETS,
  importFixture,
} from '../../support/import-fixtures.js';

const mcp = importFixture('claude', 'claude/mcp.json');

describe('parseClaudeConfig', () => {
  it('keeps a non-secret ${VAR:-default} as a literal value, with a warning', () => {
    const files = candidateNamed(mcp, 'files');
    expect(files.target).toMatchObject({ transport: 'stdio', env: { LOG_LEVEL: 'info' } });
    expect(codesOf(files)).toEqual(['import-default-kept']);
    expect(files.diagnostics[0]).toMatchObject({ line: 6, path: 'mcpServers.files.env.LOG_LEVEL' });
  });

  it('turns ${VAR} into env_vars, a secret default or literal into a moved secret', () => {
    const gh = candidateNamed(mcp, 'gh');
    expect(gh.target).toMatchObject({
      envVars: ['GITHUB_TOKEN', 'API_KEY', 'SERVICE_TOKEN', 'SLACK_BOT'],
    });
    expect(gh.target?.transport === 'stdio' ? gh.target.env : undefined).toBeUndefined();
    expect(gh.secrets.map((s) => s.name)).toEqual(['SERVICE_TOKEN', 'SLACK_BOT']);
    expect(gh.referenced).toEqual(['GITHUB_TOKEN', 'API_KEY']);
    // "API_KEY": "${MY_KEY}": the registry forwards API_KEY itself
    expect(codesOf(gh)).toEqual(['import-variable-renamed']);
  });

  it('reads Bearer ${VAR} as bearer_token_env_var and ${VAR} headers as env_http_headers', () => {
    expect(candidateNamed(mcp, 'remote').target).toEqual({
      transport: 'streamable_http',
      url: 'https://api.example.com/mcp',
      bearerTokenEnvVar: 'REMOTE_TOKEN',
      headerEnv: { 'X-Team': 'TEAM_ID' },
    });
  });

  it('refuses an sse server and a reference inside an argument', () => {
    const legacy = candidateNamed(mcp, 'legacy');
    expect(legacy.target).toBeUndefined();
    expect(codesOf(legacy)).toEqual(['import-unsupported-transport']);
    expect(legacy.diagnostics[0]?.message).toContain('Streamable HTTP');
    expect(codesOf(candidateNamed(mcp, 'embedded'))).toEqual(['import-expansion-unsupported']);
  });

  it('reads top-level and per-project servers of ~/.claude.json', () => {
    const home = importFixture('claude', 'claude/claude.json');
    expect(home.candidates.map((c) => [c.id, c.source.path])).toEqual([
      ['shared', 'mcpServers.shared'],
      ['shared', 'projects."/home/op/alpha".mcpServers.shared'],
      ['alpha-only', 'projects."/home/op/alpha".mcpServers.alpha-only'],
    ]);
  });

  it('refuses unknown keys and OAuth helpers, and points at JSON syntax errors', () => {
    const out = parseClaudeConfig(
      '{"mcpServers": {"a": {"command": "a", "arg": []}, "b": {"type": "http", "url": "https://b.example/mcp", "headersHelper": "x"}}}',
      '/m.json',
      [],
    );
    expect(codesOf(candidateNamed(out, 'a'))).toEqual(['import-unknown-field']);
    expect(codesOf(candidateNamed(out, 'b'))).toEqual(['import-unsupported-auth']);
    const bad = parseClaudeConfig(
      '{\n  "mcpServers": {\n    "a": sk-proj-canary0123456789abcdef\n  }\n}\n',
      '/m.json',
      [],
    );
    expect(bad.diagnostics.map((d) => d.code)).toEqual(['import-syntax']);
    expect(JSON.stringify(bad.diagnostics)).not.toContain('canary');
  });

  it('never puts a secret value into a diagnostic', () => {
    const text = JSON.stringify(mcp.candidates.flatMap((c) => c.diagnostics));
    for (const secret of FIXTURE_SECRETS) expect(text).not.toContain(secret);
  });
});
