/**
 * Every diagnostic of the fixture corpus says what to do instead: each code's message names the
 * remedy (the field to use, where the value belongs, or the accepted values).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

import { buildRegistry } from '../../../src/config/registry/build-registry.js';
import type { Diagnostic } from '../../../src/foundation/diagnostics/diagnostic.js';

const root = resolve(import.meta.dirname, '../../fixtures/registry/invalid');

const all: Diagnostic[] = readdirSync(root).flatMap((name) => {
  const dir = join(root, name);
  const sources = readdirSync(dir)
    .filter((f) => f.endsWith('.toml'))
    .map((f) => ({ file: join(dir, f), bytes: readFileSync(join(dir, f)) }));
  return [...buildRegistry(sources).diagnostics];
});

/** What each code's message must mention. */
const REMEDIES: Record<string, RegExp> = {
  'invalid-utf8': /UTF-8/,
  'toml-syntax': /TOML|NUL/,
  'schema-version-missing': /schema_version = 8/,
  'schema-version-unsupported': /schema_version = 8/,
  'unknown-top-level-key': /tool_mcp_servers|profile/,
  'server-not-table': /\[tool_mcp_servers\./,
  'invalid-server-id': /lowercase|rename|name the server/,
  'reserved-server-id': /reserved.*choose another ID/,
  'missing-field': /add |required|needs/,
  'invalid-type': /must be|takes/,
  'invalid-transport': /"stdio" or "streamable_http"/,
  'invalid-command': /args|non-empty/,
  'relative-path': /absolute|~\//,
  'invalid-url': /https:\/\/|URL/,
  'url-userinfo': /bearer_token_env_var|env_http_headers/,
  'url-credential': /env_http_headers|bearer_token_env_var/,
  'insecure-http': /https:\/\/.*|loopback/,
  'invalid-env-var-name': /letters, digits and _/,
  'reserved-env-var': /belong to codex-mmo.*use another name/,
  'invalid-header-name': /header name/,
  'invalid-header-value': /control characters/,
  'nul-character': /NUL/,
  'invalid-tool-name': /tool names/,
  'empty-enabled-tools': /at least one tool/,
  'duplicate-entry': /remove the repeat/,
  'invalid-approval-mode': /"auto", "prompt".*"writes".*"approve"/,
  'invalid-timeout': /positive number of seconds/,
  'tool-not-enabled': /add it to enabled_tools or remove the override/,
  'oauth-field': /bearer_token_env_var or env_http_headers.*credentials\.env/,
  'plaintext-bearer-token': /bearer_token_env_var.*credentials\.env/,
  'credential-literal-name': /(env_vars|env_http_headers).*credentials\.env/,
  'credential-literal-value': /credentials\.env/,
  'wrong-transport-field': /belongs to (stdio|streamable_http) servers.*set transport = /,
  'grant-owned-field': /profile/,
  'unsupported-field': /not supported.*(use |remove|control|named by)/,
  'unknown-field': /remove it|a tool override holds only/,
  'server-replaced': /replaces the whole definition/,
};

describe('diagnostic messages', () => {
  it('cover a remedy for every code seen in the corpus', () => {
    const codes = new Set(all.map((d) => d.code));
    expect([...codes].filter((c) => !(c in REMEDIES))).toEqual([]);
  });

  for (const [code, remedy] of Object.entries(REMEDIES)) {
    it(`${code} says what to do instead`, () => {
      const found = all.filter((d) => d.code === code);
      expect(found.length).toBeGreaterThan(0);
      for (const d of found) expect(d.message).toMatch(remedy);
    });
  }

  it('suggests the nearest field for misspellings', () => {
    const typos = all.filter((d) => d.code === 'unknown-field' && d.path?.endsWith('.comand'));
    expect(typos[0]?.message).toContain('did you mean "command"?');
  });

  it('names the owning transport and the replacement for Codex-only fields', () => {
    const url = all.find((d) => d.path === 'tool_mcp_servers.stdio_with_http.url');
    expect(url?.message).toContain('belongs to streamable_http servers');
    const ms = all.find((d) => d.path === 'tool_mcp_servers.codex_fields.startup_timeout_ms');
    expect(ms?.message).toContain('startup_timeout_sec');
    const bearer = all.find((d) => d.code === 'plaintext-bearer-token');
    expect(bearer?.message).toContain('bearer_token_env_var');
    expect(bearer?.message).toContain('credentials.env');
  });
});
