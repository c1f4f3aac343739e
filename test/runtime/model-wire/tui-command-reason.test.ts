/**
 * In an interactive `run`, Codex's own question about a command names the calling role, with real
 * Codex's TUI in a pseudo-terminal: the native `scout` asks to run a command outside the sandbox
 * (`require_escalated`, with its reason). Codex's prompt names only the thread ("Thread: Agent
 * (…)"); the wire puts the role in front of the reason, so the prompt reads "Reason: Role 'scout'
 * asks: …". Declined, the command never runs.
 */
import { appendFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { guardedRegistry, isScout, startRun } from '../../support/guarded-tui.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { compact, folderTrustAnswerer, typeUntil } from '../../support/tui.js';
import { functionCall } from '../../support/scripted-model-fixture.js';
import { profileToml, runInWorld, waitFor } from '../../support/world.js';

const MARK = 'escalated-made';

function script(request: ModelRequest): ScriptedItem[] {
  const step = request.toolOutputs.length;
  if (isScout(request)) {
    if (step > 0) return [{ type: 'message', text: 'SCOUT-DONE' }];
    return [
      {
        type: 'function_call',
        name: 'exec_command',
        arguments: {
          cmd: `touch ${MARK}`,
          sandbox_permissions: 'require_escalated',
          justification: 'needs the real disk',
        },
      },
    ];
  }
  if (step === 0) {
    return [functionCall('multi_agent_v1', 'spawn_agent', { agent_type: 'scout', message: 'go' })];
  }
  if (step === 1) {
    const id = (JSON.parse(request.toolOutputs[0]?.output ?? '{}') as { agent_id?: string })
      .agent_id;
    return [
      functionCall('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: 120_000 }),
    ];
  }
  return [{ type: 'message', text: 'LEAD-DONE' }];
}

const scripted = useScriptedSession(
  {
    registry: guardedRegistry,
    profile: profileToml('tui-command', 'lead', {
      lead: { natives: ['scout'], grants: { guarded: {} } },
      scout: {},
    }),
  },
  script,
  {
    prepare: async (w) => {
      await appendFile(join(w.configDir, 'codex-base.toml'), 'approval_policy = "on-request"\n');
    },
  },
);

describe("Codex's question about a native role's command in the TUI", () => {
  it('names the role in front of its reason', async () => {
    const w = scripted.world;
    const before = scripted.model.requests.length;
    const tui = startRun(w, ['GO']);
    try {
      const answerTrust = folderTrustAnswerer(tui, () => scripted.model.requests.length > before);
      await waitFor(() => {
        answerTrust();
        if (tui.child.exitCode !== null) throw new Error('the TUI ended');
        return compact(tui.text()).includes(
          compact('Would you like to run the following command?'),
        );
      }, 240_000).catch((error: unknown) => {
        throw new Error(`${String(error)}; the screen:\n${tui.text().slice(-4000)}`);
      });
      await waitFor(() => compact(tui.text()).includes(compact(`$ touch ${MARK}`)), 30_000).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}; the screen:\n${tui.text().slice(-4000)}`);
        },
      );
      expect(compact(tui.text())).toContain(
        compact("Reason: Role 'scout' asks: needs the real disk"),
      );
      // declined (Esc: "No, and tell Codex what to do differently", which interrupts the turn)
      const shown = compact(tui.text()).length;
      await typeUntil(tui, '\u001b', () =>
        compact(tui.text()).slice(shown).includes('Conversationinterrupted'),
      );
      await expect(stat(join(w.workDir, MARK))).rejects.toThrow();
      const id = /codex-mmo: session (\S+)/.exec(tui.text())?.[1] ?? '';
      const stopped = await runInWorld(w, ['session', 'stop', id]);
      expect(stopped.code, stopped.stderr).toBe(0);
    } finally {
      tui.child.kill('SIGKILL');
      await tui.exited;
    }
  }, 400_000);
});
