/**
 * A server's own messages through the gateway, with real Codex (`codex-mmo exec`, scripted
 * model): a fixture server sends, during one tool call, progress, a logging message,
 * `notifications/tools/list_changed` and an elicitation request. Measured on both versions:
 * Codex logs the server's log message, sends a progress token with the call, does not list the
 * tools again after list-changed, and hands the elicitation to codex-mmo as `mcpServer/elicitation/request` without an approval kind (a
 * server's own form, no tool approval), which exec declines; the server reports the decline.
 * The reference "everything" server's elicitation tool takes the same way.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { onlySession, runInWorld } from '../../support/world.js';

const EVERYTHING_BIN = join(
  import.meta.dirname,
  '../../../node_modules/.bin/mcp-server-everything',
);
const NOTIFY_SERVER = join(import.meta.dirname, '../../fixtures/servers/notify-server.mjs');

const registry = (root: string): string => `
[tool_mcp_servers.notify]
transport = "stdio"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(NOTIFY_SERVER)}, ${JSON.stringify(join(root, 'notify-log.jsonl'))}]
enabled_tools = ["notify", "after"]
default_tools_approval_mode = "approve"

[tool_mcp_servers.everything]
transport = "stdio"
command = ${JSON.stringify(EVERYTHING_BIN)}
args = ["stdio"]
enabled_tools = ["trigger-elicitation-request"]
default_tools_approval_mode = "approve"
`;

const PROFILE = `name = "msgs"
root = "lead"

[agents.lead]
description = "lead"
instructions = "ROLE-LEAD"

[agents.lead.tool_mcp_servers.notify]
required = true

[agents.lead.tool_mcp_servers.everything]
required = true
`;

const call = (namespace: string, name: string): ScriptedItem[] => [
  { type: 'function_call', namespace: `mcp__${namespace}`, name, arguments: {} },
];

function script(request: ModelRequest): ScriptedItem[] {
  switch (request.toolOutputs.length) {
    case 0:
      return call('notify', 'notify');
    case 1:
      return call('everything', 'trigger_elicitation_request');
    case 2:
      return call('notify', 'after');
    default:
      return [{ type: 'message', text: 'MSGS-DONE' }];
  }
}

const scripted = useScriptedSession({ registry, profile: PROFILE }, script);

async function lines(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("a server's notifications and requests through the gateway", () => {
  it('reach Codex; the elicitation reaches codex-mmo, which declines it', async () => {
    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('MSGS-DONE');
    expect(scripted.model.errors).toEqual([]);
    const outputs = scripted.model.requests.at(-1)?.toolOutputs.map((o) => o.output) ?? [];
    expect(outputs).toHaveLength(3);

    // the elicitation went server → gateway → relay → Codex → codex-mmo and its answer back
    expect(outputs[0]).toContain('elicitation: decline');
    expect(outputs[1]).toMatch(/declined/);
    expect(outputs[1]).toMatch(/action\W{1,8}decline/);
    expect(outputs[2]).toContain('after: done');

    const seen = await lines(join(scripted.world.root, 'notify-log.jsonl'));
    expect(seen).toContainEqual({ event: 'elicitation', action: 'decline' });
    // the call carried Codex's progress token, so the server's progress went back under it
    expect(seen.find((e) => e.event === 'call')?.progressToken).not.toBeNull();
    // measured on both versions: list-changed is relayed, but Codex does not list the tools again
    // within the session (what the model is offered stays what it was at start-up)
    expect(seen.filter((e) => e.event === 'tools/list')).toHaveLength(1);

    // the logging message reached Codex, which logs it on its stderr (the session's log)
    const { dir } = await onlySession(scripted.world);
    const codexLog = await readFile(join(dir, 'logs', 'codex.stderr.log'), 'utf8');
    expect(codexLog).toMatch(/MCP server log message.*notify-log-marker/);

    // every call went through the gateway and is in the call log
    const calls = await lines(join(dir, 'calls.jsonl'));
    expect(calls.map((c) => [c.server, c.tool, c.outcome])).toEqual([
      ['notify', 'notify', 'ok'],
      ['everything', 'trigger-elicitation-request', 'ok'],
      ['notify', 'after', 'ok'],
    ]);
  }, 240_000);
});
