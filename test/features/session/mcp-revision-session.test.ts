/**
 * Codex's MCP revision toward the gateway, with real Codex: an `exec` session whose root calls a
 * granted tool and `mmo_mesh` works the same whether Codex's `mcp_2026_07_28` feature is off
 * (2025 `initialize` sessions) or turned on in codex-base.toml's `[features]` (2026-07-28:
 * `server/discover` first, no session). With it on, the gateway asks the (2025) server
 * `server/discover` first, then opens a 2025 session with it that never carries the `_meta`
 * envelope.
 */
import { appendFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, profileToml, runInWorld } from '../../support/world.js';

const LOG = 'srv-methods.jsonl';

function script(request: ModelRequest): ScriptedItem[] {
  switch (request.toolOutputs.length) {
    case 0:
      return [
        {
          type: 'function_call',
          namespace: 'mcp__srv',
          name: 'note',
          arguments: { text: 'REVISION-PROBE' },
        },
      ];
    case 1:
      return [
        {
          type: 'function_call',
          namespace: 'mcp__mmo_mesh',
          name: 'list_participants',
          arguments: {},
        },
      ];
    default:
      return [
        {
          type: 'message',
          text: `LEAD-DONE ${request.toolOutputs.map((o) => o.output).join(' || ')}`,
        },
      ];
  }
}

const scripted = useScriptedSession(
  {
    registry: (root) =>
      echoServer('srv', { tools: 'note', args: ['--log-methods', join(root, LOG)] }),
    profile: profileToml('revision', 'lead', {
      lead: { spawn: ['worker'], control: ['worker'], grants: { srv: {} } },
      worker: {},
    }),
  },
  script,
);

interface Logged {
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

async function runSession(): Promise<{ output: string; logged: Logged[] }> {
  const log = join(scripted.world.root, LOG);
  await rm(log, { force: true });
  const before = scripted.model.requests.length;
  const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'check']);
  expect(scripted.model.errors).toEqual([]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain('LEAD-DONE');
  const requests = scripted.model.requests.slice(before);
  expect(requests[0]?.offeredTools.mcp.srv).toEqual(['note']);
  expect(requests[0]?.offeredTools.mcp.mmo_mesh).toContain('list_participants');
  const text = await readFile(log, 'utf8');
  const logged = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Logged);
  return { output: result.stdout, logged };
}

function initializeVersion(logged: Logged[]): unknown {
  return logged.find((m) => m.method === 'initialize')?.params?.protocolVersion;
}

describe('the MCP revision Codex speaks to the gateway', () => {
  it('serves a granted tool and mmo_mesh with the mcp_2026_07_28 feature off', async () => {
    const { output, logged } = await runSession();
    expect(output).toContain('REVISION-PROBE');
    expect(output).toMatch(/participants/);
    expect(output).not.toContain('refused');
    // Codex's own initialize session reached the server
    expect(initializeVersion(logged)).toBe('2025-06-18');
  });

  it('serves them the same with the feature on in codex-base.toml', async () => {
    await appendFile(
      join(scripted.world.configDir, 'codex-base.toml'),
      '\n[features]\nmcp_2026_07_28 = true\n',
    );
    const { output, logged } = await runSession();
    expect(output).toContain('REVISION-PROBE');
    expect(output).toMatch(/participants/);
    expect(output).not.toContain('refused');
    // for Codex's 2026 client the gateway asked the server server/discover first; a 2025 server
    // does not answer it, so the gateway opened its session (the newest 2025 revision)
    expect(logged[0]?.method).toBe('server/discover');
    expect(initializeVersion(logged)).toBe('2025-11-25');
    expect(logged.some((m) => m.method === 'tools/call')).toBe(true);
    // past the discover, the session server never gets the 2026 envelope
    expect(JSON.stringify(logged.slice(1))).not.toContain('io.modelcontextprotocol/');
  });
});
