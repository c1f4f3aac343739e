/**
 * `tool-mcp list --check` (and `tool-mcp status`) against real servers: the fixture server
 * (pinned, drifted, hanging), the MCP reference server, a command that does not exist, a missing
 * variable and an invalid definition, all in one table and one JSON document.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import {
  ALPHA_PROMPT,
  EVERYTHING_BIN,
  q,
  runIn,
  workspace,
  type Workspace,
} from '../support/probe-helpers.js';

interface CheckJson {
  ok: boolean;
  servers: {
    id: string;
    transport: string | null;
    status: string;
    reason?: string;
    missing_variables: string[];
    tools_offered: number | null;
    tools_enabled: number;
    pin: string;
    ok: boolean;
    diagnostics: { code: string; message: string }[];
  }[];
  diagnostics: unknown[];
}

const alpha = (description: string) => ({
  tools: [{ name: 'alpha', description, inputSchema: { type: 'object' } }],
});

describe('tool-mcp list --check', () => {
  let ws: Workspace;
  const secret = 'canary-check-secret-6610';

  beforeAll(async () => {
    ws = await workspace();
    await ws.credentials(`FX_SECRET=${secret}\n`);
    await ws.fixtureServer(alpha('one'), `${ALPHA_PROMPT}\nenv_vars = ["FX_SECRET"]`, {
      id: 'pinned',
    });
    await ws.fixtureServer(alpha('one'), ALPHA_PROMPT, { id: 'drifted' });
    for (const id of ['pinned', 'drifted']) {
      const pin = await runIn(ws, ['tool-mcp', 'pin', id]);
      expect(pin.code, pin.stdout).toBe(0);
    }
    await ws.fixture('drifted.json', alpha('two: a changed description'));
    await ws.fixtureServer({ mode: 'hang' }, ALPHA_PROMPT, { id: 'hangs' });
    await ws.fragment(
      '20-more.toml',
      `[tool_mcp_servers.every]
transport = "stdio"
command = ${q(EVERYTHING_BIN)}
args = ["stdio"]
enabled_tools = ["echo", "get-sum"]
default_tools_approval_mode = "prompt"

[tool_mcp_servers.gone]
transport = "stdio"
command = "no-such-mcp-server-binary"
enabled_tools = ["x"]
default_tools_approval_mode = "prompt"

[tool_mcp_servers.needs]
transport = "stdio"
command = ${q(process.execPath)}
env_vars = ["NOT_SET_ANYWHERE"]
enabled_tools = ["x"]
default_tools_approval_mode = "prompt"

[tool_mcp_servers.broken]
transport = "stdio"
command = "true"
enabled_tools = ["x"]
default_tools_approval_mode = "sometimes"
`,
    );
  }, 60_000);

  it('reports every server in one JSON document and exits 1 when any fails', async () => {
    const started = Date.now();
    const r = await runIn(ws, ['tool-mcp', 'list', '--check', '--timeout', '2']);
    expect(r.code, r.stderr).toBe(1);
    const out = r.json<CheckJson>();
    expect(out.ok).toBe(false);
    const byId = Object.fromEntries(out.servers.map((s) => [s.id, s]));
    expect(out.servers.map((s) => s.id)).toEqual([
      'broken',
      'drifted',
      'every',
      'gone',
      'hangs',
      'needs',
      'pinned',
    ]);
    expect(byId.pinned).toMatchObject({ status: 'ok', tools_offered: 1, pin: 'match', ok: true });
    expect(byId.drifted).toMatchObject({ status: 'ok', pin: 'drift', ok: false });
    expect(byId.drifted?.diagnostics.map((d) => d.code)).toContain('tool-drift');
    expect(byId.every).toMatchObject({ status: 'ok', pin: 'not-pinned', tools_enabled: 2 });
    expect(byId.every?.tools_offered).toBeGreaterThan(5);
    expect(byId.gone).toMatchObject({ status: 'failed', reason: 'command not found', ok: false });
    expect(byId.gone?.tools_offered).toBeNull();
    expect(byId.hangs).toMatchObject({ status: 'failed', reason: 'timeout' });
    expect(byId.needs).toMatchObject({
      status: 'missing-variable',
      missing_variables: ['NOT_SET_ANYWHERE'],
    });
    expect(byId.broken).toMatchObject({ status: 'invalid', ok: false });
    // the hanging server is bounded by --timeout, and the others do not wait for it
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.stdout).not.toContain(secret);
  }, 60_000);

  it('prints one table, errors on stderr, credential values never', async () => {
    const r = await runIn(ws, ['tool-mcp', 'status', '--timeout', '2'], { json: false });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TRANSPORT\s+STATUS\s+TOOLS\s+PIN$/);
    const row = (id: string): string => lines.find((l) => l.startsWith(`${id} `)) ?? '';
    expect(row('pinned')).toMatch(/stdio\s+ok\s+1\s+pinned$/);
    expect(row('drifted')).toMatch(/ok\s+1\s+drift$/);
    expect(row('every')).toMatch(/ok\s+\d+\s+not pinned$/);
    expect(row('gone')).toMatch(/failed: command not found\s+-\s+not pinned$/);
    expect(row('hangs')).toMatch(/failed: timeout\s+-\s+not pinned$/);
    expect(row('needs')).toMatch(/missing variable: NOT_SET_ANYWHERE\s+-\s+not pinned$/);
    expect(row('broken')).toMatch(/invalid definition/);
    expect(r.stderr).toContain('command-not-found');
    expect(r.stderr).toContain('tool-drift');
    expect(r.stdout + r.stderr).not.toContain(secret);
  }, 60_000);

  it('exits 0 when every server is up and matches its pin', async () => {
    const good = await workspace();
    await good.credentials(`FX_SECRET=${secret}\n`);
    await good.fixtureServer(alpha('one'), `${ALPHA_PROMPT}\nenv_vars = ["FX_SECRET"]`);
    expect((await runIn(good, ['tool-mcp', 'pin', 'fx'])).code).toBe(0);
    const r = await runIn(good, ['tool-mcp', 'ls', '--check']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.json<CheckJson>()).toMatchObject({
      ok: true,
      servers: [{ id: 'fx', status: 'ok', pin: 'match', ok: true }],
    });
  }, 60_000);

  it('refuses --timeout without --check, and a bad --timeout', async () => {
    expect((await runIn(ws, ['tool-mcp', 'list', '--timeout', '3'])).code).toBe(2);
    expect((await runIn(ws, ['tool-mcp', 'list', '--check', '--timeout', 'soon'])).code).toBe(2);
  });
});
