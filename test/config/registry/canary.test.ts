/**
 * Secrets planted in rejected literals (env, headers, URL, bearer_token, args, variable-name
 * fields, OAuth tables, unknown fields, even keys and IDs shaped like tokens) never appear in any
 * diagnostic: not in a message, a path, a server name, the JSON form or the printed form.
 */
import { describe, expect, it } from 'vitest';

import { formatDiagnostic } from '../../../src/foundation/diagnostics/diagnostic.js';
import { buildRegistry } from '../../../src/config/registry/build-registry.js';
import type { FragmentSource } from '../../../src/config/registry/types.js';

const CANARY = 'CANARY_SECRET_9f2c4e1a';
/** Token-shaped canaries (they must be recognised by shape, not by the field's name). */
const SK = 'sk-CANARYSECRET9f2c4e1a00000000';
const GHP = 'ghp_CANARYSECRET9f2c4e1a0000000000000000';
const JWT = 'eyJDANARYSECRET.eyJDANARYSECRET.CANARYSECRETSIG';

const encoder = new TextEncoder();
const source = (file: string, text: string): FragmentSource => ({
  file,
  bytes: encoder.encode(text),
});

const stdio = `transport = "stdio"\ncommand = "srv"\nenabled_tools = ["a"]\ndefault_tools_approval_mode = "auto"\n`;
const http = `transport = "streamable_http"\nurl = "https://mcp.example.invalid/"\nenabled_tools = ["a"]\ndefault_tools_approval_mode = "auto"\n`;

const FRAGMENTS: FragmentSource[] = [
  source(
    '/cfg/tool-mcp.d/10-literals.toml',
    `schema_version = 8

[tool_mcp_servers.env_by_name]
${stdio}env = { GITHUB_TOKEN = "${CANARY}", DB_PASSWORD = "${CANARY}" }

[tool_mcp_servers.env_by_value]
${stdio}env = { OPENAI = "${SK}", GH = "${GHP}", J = "${JWT}" }
args = ["--api-key", "${SK}"]
env_vars = ["${GHP}"]

[tool_mcp_servers.headers]
${http}http_headers = { Authorization = "Bearer ${CANARY}", X-Trace = "Bearer ${CANARY}", X-Api-Key = "${CANARY}" }
env_http_headers = { X-Key = "${GHP}" }

[tool_mcp_servers.bearer]
${http}bearer_token = "${CANARY}"

[tool_mcp_servers.bearer_var]
${http}bearer_token_env_var = "${SK}"

[tool_mcp_servers.oauth]
${http}oauth = { client_secret = "${CANARY}" }
scopes = ["${CANARY}"]
auth = "${CANARY}"
`,
  ),
  source(
    '/cfg/tool-mcp.d/20-urls.toml',
    `schema_version = 8

[tool_mcp_servers.url_query]
transport = "streamable_http"
url = "https://mcp.example.invalid/?token=${CANARY}&api_key=${CANARY}"
enabled_tools = ["a"]
default_tools_approval_mode = "auto"

[tool_mcp_servers.url_userinfo]
transport = "streamable_http"
url = "http://admin:${CANARY}@mcp.example.invalid/"
enabled_tools = ["a"]
default_tools_approval_mode = "auto"

[tool_mcp_servers.url_path]
transport = "streamable_http"
url = "https://mcp.example.invalid/${SK}/mcp?q=${GHP}"
enabled_tools = ["a"]
default_tools_approval_mode = "auto"
`,
  ),
  source(
    '/cfg/tool-mcp.d/30-elsewhere.toml',
    `schema_version = 8

[tool_mcp_servers.elsewhere]
transport = "${CANARY}"
command = "./${CANARY}/bin"
enabled_tools = ["a"]
default_tools_approval_mode = "${CANARY}"
unknown_field = "${CANARY}"
required = "${CANARY}"
startup_timeout_sec = "${CANARY}"

[tool_mcp_servers.wrong_transport]
${http}env = { API_TOKEN = "${CANARY}" }
args = ["${SK}"]

[tool_mcp_servers.key_shaped]
${stdio}env = { "${GHP}" = "x" }

[tool_mcp_servers."${SK}"]
${stdio}
[tool_mcp_servers.tools]
${stdio}[tool_mcp_servers.tools.tools.a]
approval_mode = "${CANARY}"
`,
  ),
  source('/cfg/tool-mcp.d/40-version.toml', `schema_version = "${CANARY}"\n`),
  source('/cfg/tool-mcp.d/50-syntax.toml', `schema_version = 8\nx = "${CANARY}\n`),
  source('/cfg/tool-mcp.d/60-syntax.toml', `schema_version = 8\nx = ${CANARY}\n`),
];

const NEEDLES = ['CANARY', 'DANARY', SK, GHP, JWT];

describe('no credential value reaches a diagnostic', () => {
  const registry = buildRegistry(FRAGMENTS);

  it('rejects every planted literal', () => {
    expect(registry.servers.size).toBe(0);
    const codes = new Set(registry.diagnostics.map((d) => d.code));
    for (const code of [
      'credential-literal-name',
      'credential-literal-value',
      'plaintext-bearer-token',
      'oauth-field',
      'url-credential',
      'url-userinfo',
      'invalid-transport',
      'relative-path',
      'invalid-approval-mode',
      'unknown-field',
      'grant-owned-field',
      'invalid-type',
      'wrong-transport-field',
      'invalid-server-id',
      'schema-version-unsupported',
      'toml-syntax',
    ]) {
      expect(codes, code).toContain(code);
    }
  });

  it('keeps values out of messages, paths, servers, JSON and printed lines', () => {
    const json = JSON.stringify(registry.diagnostics);
    const printed = registry.diagnostics.map(formatDiagnostic).join('\n');
    const statuses = JSON.stringify(registry.statuses);
    for (const needle of NEEDLES) {
      expect(json).not.toContain(needle);
      expect(printed).not.toContain(needle);
      expect(statuses).not.toContain(needle);
    }
    expect(json).toContain('<redacted>');
  });

  it('names each rejected literal by its key', () => {
    const paths = registry.diagnostics.map((d) => d.path);
    expect(paths).toContain('tool_mcp_servers.env_by_name.env.GITHUB_TOKEN');
    expect(paths).toContain('tool_mcp_servers.env_by_value.env.OPENAI');
    expect(paths).toContain('tool_mcp_servers.env_by_value.args[1]');
    expect(paths).toContain('tool_mcp_servers.headers.http_headers.Authorization');
    expect(paths).toContain('tool_mcp_servers.bearer.bearer_token');
    expect(paths).toContain('tool_mcp_servers.url_query.url');
  });
});
