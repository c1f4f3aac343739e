/**
 * A Tool MCP server that speaks only MCP 2026-07-28 (SDK v2, `initialize` refused) granted to a
 * root role in a real Codex `exec` session: the gateway opens it with `server/discover` and sends
 * the `_meta` envelope on every request, while Codex keeps its own 2025 session with the gateway.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { profileToml, runInWorld } from '../../support/world.js';

const SERVER = resolve('test/fixtures/servers/sdk2-server.mjs');
const LOG = 'modern-methods.jsonl';

function modernServer(root: string): string {
  const args = [SERVER, '--modern-only', '--tools', 'note', '--log-methods', join(root, LOG)];
  return [
    '',
    '[tool_mcp_servers.modern-srv]',
    'transport = "stdio"',
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify(args)}`,
    'enabled_tools = ["note"]',
    'default_tools_approval_mode = "approve"',
    '',
  ].join('\n');
}

function script(request: ModelRequest): ScriptedItem[] {
  if (request.toolOutputs.length === 0) {
    return [
      {
        type: 'function_call',
        namespace: 'mcp__modern_srv',
        name: 'note',
        arguments: { text: 'MODERN-PROBE' },
      },
    ];
  }
  return [
    { type: 'message', text: `LEAD-DONE ${request.toolOutputs.map((o) => o.output).join(' ')}` },
  ];
}

const scripted = useScriptedSession(
  {
    registry: modernServer,
    profile: profileToml('modern', 'lead', { lead: { grants: { 'modern-srv': {} } } }),
  },
  script,
);

describe('a server on MCP 2026-07-28 only', () => {
  it('serves its granted tool to a real Codex root through the gateway', async () => {
    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'check']);
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
    expect(result.stdout).toContain('MODERN-PROBE');
    expect(scripted.model.requests[0]?.offeredTools.mcp.modern_srv).toEqual(['note']);
    const logged = (await readFile(join(scripted.world.root, LOG), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { method: string; meta?: Record<string, unknown> });
    const methods = logged.map((m) => m.method);
    expect(methods).toContain('server/discover');
    expect(methods).toContain('tools/call');
    for (const m of logged.filter((l) => l.method === 'tools/call' || l.method === 'tools/list')) {
      expect(m.meta?.['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    }
  });
});
