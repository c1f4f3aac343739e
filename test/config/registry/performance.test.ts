/**
 * Validation of large inputs: 200 servers in 20 fragments, and 5 MB fragments of several shapes
 * (many servers, one huge value, a huge array, a huge comment, many unknown keys) finish with the
 * right diagnostics instead of hanging (within the suite's test timeout; `npm run bench:registry`
 * measures the speed).
 */
import { describe, expect, it } from 'vitest';

import { buildRegistry } from '../../../src/config/registry/build-registry.js';
import type { FragmentSource } from '../../../src/config/registry/types.js';

const encoder = new TextEncoder();
const MB = 1024 * 1024;

function server(id: string, n: number): string {
  return n % 2 === 0
    ? `[tool_mcp_servers.${id}]
transport = "stdio"
command = "mcp-server-${id}"
args = ["--port", "${String(3000 + n)}", "--verbose"]
env = { LOG_LEVEL = "info", REGION = "eu" }
env_vars = ["${id.toUpperCase().replace(/-/g, '_')}_TOKEN"]
enabled_tools = ["search", "fetch", "summarise"]
default_tools_approval_mode = "writes"
startup_timeout_sec = 20
tool_timeout_sec = 120

[tool_mcp_servers.${id}.tools.fetch]
approval_mode = "prompt"
`
    : `[tool_mcp_servers.${id}]
transport = "streamable_http"
url = "https://${id}.example.invalid/mcp"
bearer_token_env_var = "${id.toUpperCase().replace(/-/g, '_')}_API_KEY"
http_headers = { X-Client = "codex-mmo" }
enabled_tools = ["search", "scrape"]
default_tools_approval_mode = "prompt"
`;
}

function timed<T>(f: () => T): { value: T } {
  return { value: f() };
}

describe('registry performance', () => {
  it('builds 200 servers from 20 fragments', () => {
    const sources: FragmentSource[] = [];
    for (let f = 0; f < 20; f++) {
      let text = 'schema_version = 8\n\n';
      for (let s = 0; s < 10; s++) text += `${server(`srv-${String(f * 10 + s)}`, s)}\n`;
      sources.push({
        file: `/cfg/tool-mcp.d/${String(f).padStart(2, '0')}.toml`,
        bytes: encoder.encode(text),
      });
    }
    // the speed itself is measured by `npm run bench:registry`
    const built = buildRegistry(sources);
    expect(built.diagnostics).toEqual([]);
    expect(built.servers.size).toBe(200);
  });

  it('handles a 5 MB fragment of many servers', () => {
    let text = 'schema_version = 8\n';
    let n = 0;
    while (text.length < 5 * MB) text += server(`s${String(n)}`, n++);
    const { value } = timed(() =>
      buildRegistry([{ file: '/cfg/big.toml', bytes: encoder.encode(text) }]),
    );
    expect(value.diagnostics).toEqual([]);
    expect(value.servers.size).toBe(n);
  });

  const head = `schema_version = 8
[tool_mcp_servers.x]
transport = "stdio"
command = "srv"
enabled_tools = ["a"]
default_tools_approval_mode = "auto"
`;
  const cases: [string, () => string, string[]][] = [
    ['a 5 MB value', () => `${head}env = { LOG = "${'a-'.repeat(2.5 * MB)}" }\n`, []],
    [
      'a 5 MB token-shaped value',
      () => `${head}env = { LOG = "sk-${'a'.repeat(5 * MB)}" }\n`,
      ['credential-literal-value'],
    ],
    ['a 5 MB single-line array', () => `${head}args = [${'"--flag", '.repeat(MB / 2)}]\n`, []],
    ['a 5 MB comment', () => `# ${'x'.repeat(5 * MB)}\n${head}`, []],
    [
      '50 000 unknown keys',
      () => head + Array.from({ length: 50_000 }, (_, k) => `unknown_${String(k)} = 1\n`).join(''),
      Array.from({ length: 50_000 }, () => 'unknown-field'),
    ],
    ['a 5 MB key', () => `${head}${'k'.repeat(5 * MB)} = 1\n`, ['unknown-field']],
  ];
  it.each(cases)('handles %s promptly', (_label, make, codes) => {
    const bytes = encoder.encode(make());
    const { value } = timed(() => buildRegistry([{ file: '/cfg/big.toml', bytes }]));
    expect(value.diagnostics.map((d) => d.code)).toEqual(codes);
    for (const d of value.diagnostics) expect(d.message.length).toBeLessThan(600);
  });
});
