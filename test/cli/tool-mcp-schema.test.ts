import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';

describe('tool-mcp schema', () => {
  it('prints the fragment JSON Schema (draft 2020-12) in text and JSON form alike', async () => {
    const text = await runCli(['tool-mcp', 'schema']);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    const schema = text.json<Record<string, unknown>>();
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(JSON.stringify(schema)).toContain('tool_mcp_servers');
    const json = await runCli(['tool-mcp', 'schema', '--json']);
    expect(json.stdout).toBe(text.stdout);
  });

  it('has --help and takes no arguments', async () => {
    const help = await runCli(['tool-mcp', 'schema', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: codex-mmo tool-mcp schema');
    expect((await runCli(['tool-mcp', 'schema', 'extra'])).code).toBe(2);
  });
});
