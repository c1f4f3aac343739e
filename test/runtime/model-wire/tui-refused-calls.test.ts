/**
 * In an interactive `run`, a native role's call of a tool outside its grant is never put to the
 * person, with real Codex's TUI in a pseudo-terminal: the native `scout` (granted nothing) names
 * `guarded.write`, a tool of its process whose every call Codex asks about; the wire turns the
 * call away in the model's stream, so the scout's model reads the refusal, no prompt appears, the
 * server never sees the call and `session calls` records it as the scout's. The lead's own call
 * of the same tool (granted to it) is asked about, as the lead's — the prompt the scout never got.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { sessionCalls } from '../../support/session-calls.js';
import { functionCall } from '../../support/scripted-model-fixture.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { compact, folderTrustAnswerer, startTui } from '../../support/tui.js';
import {
  CLI,
  echoServer,
  profileToml,
  runInWorld,
  waitFor,
  withDirArgs,
} from '../../support/world.js';

const isScout = (r: ModelRequest): boolean =>
  r.developerTexts.some((t) => t.includes('ROLE-SCOUT'));

function script(request: ModelRequest): ScriptedItem[] {
  const step = request.toolOutputs.length;
  if (isScout(request)) {
    if (step === 0) return [functionCall('mcp__guarded', 'write', { text: 'scout-writes' })];
    return [{ type: 'message', text: `SCOUT-READ ${request.toolOutputs[0]?.output ?? ''}` }];
  }
  if (step === 0)
    return [functionCall('multi_agent_v1', 'spawn_agent', { agent_type: 'scout', message: 'go' })];
  if (step === 1) {
    const id = (JSON.parse(request.toolOutputs[0]?.output ?? '{}') as { agent_id?: string })
      .agent_id;
    return [
      functionCall('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: 120_000 }),
    ];
  }
  // the lead's own call of the tool, granted to it: the person is asked
  if (step === 2) return [functionCall('mcp__guarded', 'write', { text: 'lead-writes' })];
  return [{ type: 'message', text: 'LEAD-DONE' }];
}

const scripted = useScriptedSession(
  {
    registry: (root) =>
      echoServer('guarded', {
        tools: 'write!',
        approval: 'prompt',
        args: ['--call-log', join(root, 'guarded-calls.jsonl')],
      }),
    profile: profileToml('tui-refused', 'lead', {
      lead: { natives: ['scout'], grants: { guarded: {} } },
      scout: {},
    }),
  },
  script,
);

describe('a native role outside its grant in the TUI', () => {
  it('is refused without asking the person, and recorded as its own', async () => {
    const w = scripted.world;
    const before = scripted.model.requests.length;
    const tui = startTui(
      process.execPath,
      [CLI, ...withDirArgs(w, ['run', w.packDir, '--', 'GO'])],
      {
        cwd: w.workDir,
        env: w.env,
        cols: 160,
        rows: 50,
      },
    );
    try {
      const answerTrust = folderTrustAnswerer(tui, () => scripted.model.requests.length > before);
      // the first prompt to show is the lead's own: by then the scout has read its refusal (a
      // prompt for the scout's call would have held the scout until it was answered)
      let scoutRequests = 0;
      await waitFor(() => {
        answerTrust();
        if (tui.child.exitCode !== null) throw new Error('the TUI ended');
        scoutRequests = scripted.model.requests.filter(isScout).length;
        return compact(tui.text()).includes(
          compact(
            "codex-mmo approval a1: role lead (in the session's root Codex) asks to call tool 'write' of MCP server 'guarded'.",
          ),
        );
      }, 240_000).catch((error: unknown) => {
        throw new Error(`${String(error)}; the screen:\n${tui.text().slice(-4000)}`);
      });
      expect(scoutRequests).toBe(2);
      const read = scripted.model.requests.filter(isScout).at(-1)?.toolOutputs[0]?.output ?? '';
      expect(read).toContain("is not granted to role 'scout' [tool-not-granted-to-role]");
      const logged = await readFile(join(w.root, 'guarded-calls.jsonl'), 'utf8').catch(() => '');
      expect(logged).not.toContain('scout-writes');

      const id = /codex-mmo: session (\S+)/.exec(tui.text())?.[1] ?? '';
      const calls = await sessionCalls(w, id);
      expect(calls).toContainEqual(
        expect.objectContaining({
          role: 'scout',
          server: 'guarded',
          tool: 'write',
          outcome: 'denied',
          reason: 'tool-not-granted-to-role',
        }),
      );
      const stopped = await runInWorld(w, ['session', 'stop', id]);
      expect(stopped.code, stopped.stderr).toBe(0);
    } finally {
      tui.child.kill('SIGKILL');
      await tui.exited;
    }
  }, 300_000);
});
