/**
 * Pins cover identity, against real MCP servers: pointing a pinned ID at another server (here the
 * probe fixture replaced by the real `server-everything`) is reported by `probe` in words — the
 * server's reported name and version before and now, and what changed in its definition — and a
 * re-pin says what it accepted. `tool-mcp add` starts the server once and honours its options;
 * `tool-mcp remove` takes it out again.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../../support/cli.js';
import {
  EVERYTHING_BIN,
  FIXTURE_SERVER,
  launchEnv,
  q,
  runIn,
  workspace,
  type Workspace,
} from '../../support/probe-helpers.js';

/** `tool-mcp add ID OPTIONS -- COMMAND…` with the workspace's config dir before the `--`. */
function add(ws: Workspace, id: string, options: string[], command: string[], json = true) {
  return runCli(
    [
      'tool-mcp',
      'add',
      id,
      ...options,
      '--config-dir',
      ws.configDir,
      ...(json ? ['--json'] : []),
      '--',
      ...command,
    ],
    { env: launchEnv(ws), home: ws.home, cwd: ws.root },
  );
}

interface Json {
  ok: boolean;
  diagnostics: { code: string; severity: string; message: string }[];
  definition_changes?: string[];
  identity_change?: { before: string; after: string };
  written?: boolean;
}

describe('a pinned ID pointed at another server', () => {
  it('is reported by probe in words and accepted by a re-pin that lists the change', async () => {
    const ws = await workspace();
    const config = await ws.fixture('memory.json', {
      tools: [{ name: 'alpha', description: 'A', inputSchema: { type: 'object' } }],
    });
    await ws.fragment(
      '10-memory.toml',
      `[tool_mcp_servers.memory]
transport = "stdio"
command = ${q(process.execPath)}
args = [${q(FIXTURE_SERVER)}, ${q(config)}]
enabled_tools = ["alpha"]
default_tools_approval_mode = "prompt"
`,
    );
    expect((await runIn(ws, ['tool-mcp', 'pin', 'memory'])).code).toBe(0);

    await ws.fragment(
      '10-memory.toml',
      `[tool_mcp_servers.memory]
transport = "stdio"
command = ${q(EVERYTHING_BIN)}
args = ["stdio"]
enabled_tools = ["echo"]
default_tools_approval_mode = "prompt"
`,
    );
    const probe = await runIn(ws, ['tool-mcp', 'probe', 'memory']);
    expect(probe.code).toBe(1);
    const found = probe.json<Json>().diagnostics;
    const identity = found.find((d) => d.code === 'server-identity-changed');
    expect(identity?.severity).toBe('error');
    expect(identity?.message).toContain('now answers as mcp-servers/everything');
    expect(identity?.message).toContain('was pinned as probe-fixture 1.2.3');
    const drift = found.find((d) => d.code === 'definition-drift');
    expect(drift?.message).toContain(`command ${q(process.execPath)} → ${q(EVERYTHING_BIN)}`);

    const pin = await runIn(ws, ['tool-mcp', 'pin', 'memory'], { json: false });
    expect(pin.code).toBe(0);
    expect(pin.stdout).toMatch(
      /accepted server change: probe-fixture 1\.2\.3 → mcp-servers\/everything \S+/,
    );
    expect(pin.stdout).toContain('accepted definition change: command');
    const again = await runIn(ws, ['tool-mcp', 'probe', 'memory']);
    expect(again.json<Json>().diagnostics.map((d) => d.code)).not.toContain(
      'server-identity-changed',
    );
    expect((await runIn(ws, ['tool-mcp', 'validate'])).code).toBe(0);
  });
});

describe('tool-mcp add options and remove', () => {
  it('writes the given settings and tools and pins them; remove undoes it', async () => {
    const ws = await workspace();
    const added = await add(
      ws,
      'everything',
      [
        '--env',
        'LOG_LEVEL=debug',
        '--cwd',
        ws.root,
        '--tools',
        'echo,get-sum',
        '--approval-mode',
        'prompt',
        '--startup-timeout',
        '25',
        '--tool-timeout',
        '70',
      ],
      [EVERYTHING_BIN, 'stdio'],
      false,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Pinned its tool surface');
    const file = join(ws.configDir, 'tool-mcp.d', '50-everything.toml');
    const text = await readFile(file, 'utf8');
    expect(text).toContain(`cwd = ${q(ws.root)}`);
    expect(text).toMatch(/enabled_tools = \[\n(?:.*\n)*?\s+"echo",\n(?:.*\n)*?\s+"get-sum",\n\]/);
    expect(text).not.toContain('"get-env"');
    expect(text).toContain('default_tools_approval_mode = "prompt"');
    expect(text).toContain('startup_timeout_sec = 25');
    expect(text).toContain('tool_timeout_sec = 70');
    expect(text).toContain('[tool_mcp_servers.everything.env]\nLOG_LEVEL = "debug"');
    expect((await runIn(ws, ['tool-mcp', 'validate'])).code).toBe(0);

    // a secret-looking literal and a tool the server does not offer are refused
    const secret = await add(
      ws,
      'other',
      ['--env', 'API_TOKEN=abc123def456'],
      [EVERYTHING_BIN, 'stdio'],
    );
    expect(secret.code).toBe(1);
    expect(secret.stdout).not.toContain('abc123def456');
    const typo = await add(ws, 'other', ['--tools', 'get_sum'], [EVERYTHING_BIN, 'stdio']);
    expect(typo.code).toBe(1);
    expect(
      typo.json<Json>().diagnostics.find((d) => d.code === 'add-tool-not-offered')?.message,
    ).toContain("did you mean 'get-sum'?");

    const remove = await runIn(ws, ['tool-mcp', 'remove', 'everything'], { json: false });
    expect(remove.code).toBe(0);
    expect(remove.stdout).toContain(`deleted ${file}`);
    expect(remove.stdout).toContain('Removed its pin from tool-mcp.lock');
    expect(await readdir(join(ws.configDir, 'tool-mcp.d'))).toEqual([]);
    expect(await readFile(join(ws.configDir, 'tool-mcp.lock'), 'utf8')).not.toContain(
      '[servers.everything',
    );
  });
});
