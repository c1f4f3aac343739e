/**
 * An interactive `run` whose root Codex is told on its command line to ask about nothing
 * (`--dangerously-bypass-approvals-and-sandbox`) answers an MCP prompt by itself, so the gateway
 * leaves the asking to Codex's own rules there: the call of a `prompt` tool goes as Codex decides
 * with that flag (it runs, as in plain Codex), and no answer is ever recorded as a person's.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { guardedCalls, guardedRegistry, startRun } from '../../support/guarded-tui.js';
import { functionCall } from '../../support/scripted-model-fixture.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { folderTrustAnswerer } from '../../support/tui.js';
import { profileToml, runInWorld, waitFor } from '../../support/world.js';

function script(request: ModelRequest): ScriptedItem[] {
  if (request.toolOutputs.length === 0) {
    return [functionCall('mcp__guarded', 'write', { text: 'lead-writes' })];
  }
  return [{ type: 'message', text: `LEAD-READ ${request.toolOutputs.at(-1)?.output ?? ''}` }];
}

const scripted = useScriptedSession(
  {
    registry: guardedRegistry,
    profile: profileToml('tui-bypass', 'lead', { lead: { grants: { guarded: {} } } }),
  },
  script,
);

describe('a root Codex told to ask about nothing', () => {
  it("keeps its own rules, and no answer is recorded as a person's", async () => {
    const w = scripted.world;
    const before = scripted.model.requests.length;
    const tui = startRun(w, ['--dangerously-bypass-approvals-and-sandbox', 'GO']);
    try {
      const answerTrust = folderTrustAnswerer(tui, () => scripted.model.requests.length > before);
      // nobody types anything but the folder's answer
      await waitFor(() => {
        answerTrust();
        if (tui.child.exitCode !== null) throw new Error(`the TUI ended:\n${tui.text()}`);
        return scripted.model.requests.some((r) => r.toolOutputs.length === 1);
      }, 180_000);
      const id = /codex-mmo: session (\S+)/.exec(tui.text())?.[1] ?? '';
      const reached = await guardedCalls(w.root);
      expect(reached).toContain('lead-writes');
      const records = await readFile(
        join(w.stateDir, 'sessions', id, 'approvals.jsonl'),
        'utf8',
      ).catch(() => '');
      expect(records).not.toContain('"answered"');
      expect(records).not.toContain('"tui"');
      await runInWorld(w, ['session', 'stop', id]);
    } finally {
      tui.child.kill('SIGKILL');
      await tui.exited;
    }
  }, 300_000);
});
