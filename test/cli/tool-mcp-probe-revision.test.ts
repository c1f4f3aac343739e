/**
 * A pinned server that moves to MCP 2026-07-28 (a real SDK v2 server, upgraded in place to reject
 * 2025-era requests): `tool-mcp probe` still reaches it, through `server/discover`, and names the
 * change of revision as drift; `tool-mcp pin` accepts it.
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { q, runIn, workspace } from '../support/probe-helpers.js';

const SDK2_SERVER = resolve('test/fixtures/servers/sdk2-server.mjs');

describe('a pinned server that changes its MCP revision', () => {
  it('is reached in its new revision, and the change is drift until pinned', async () => {
    const ws = await workspace();
    const modeFile = join(ws.root, 'mode');
    await ws.fragment(
      '10-moving.toml',
      `[tool_mcp_servers.moving]
transport = "stdio"
command = ${q(process.execPath)}
args = ${JSON.stringify([SDK2_SERVER, '--tools', 'echo', '--mode-file', modeFile])}
enabled_tools = ["echo"]
default_tools_approval_mode = "approve"`,
    );
    const pinned = await runIn(ws, ['tool-mcp', 'pin', 'moving']);
    expect(pinned.code, pinned.stderr).toBe(0);

    await writeFile(modeFile, 'modern\n');
    const probed = await runIn(ws, ['tool-mcp', 'probe', 'moving']);
    expect(probed.code).toBe(1);
    expect(probed.stdout + probed.stderr).toContain('server-drift');
    // every tool still matches: only the revision moved
    expect(probed.stdout + probed.stderr).toContain(
      'MCP revision changed: pinned 2025-11-25 (initialize), now 2026-07-28 (server/discover)',
    );
    const report = JSON.parse(probed.stdout) as {
      protocol_version: string;
      tools: { name: string; pin: string }[];
    };
    expect(report.protocol_version).toBe('2026-07-28');
    expect(report.tools.map((t) => [t.name, t.pin])).toEqual([['echo', 'match']]);

    const repinned = await runIn(ws, ['tool-mcp', 'pin', 'moving']);
    expect(repinned.code, repinned.stderr).toBe(0);
    const again = await runIn(ws, ['tool-mcp', 'probe', 'moving']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout + again.stderr).not.toContain('server-drift');
  });
});
