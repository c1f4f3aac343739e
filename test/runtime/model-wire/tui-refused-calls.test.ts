/**
 * In an interactive `run`, a native role's call of a tool outside its grant is never put to the
 * person, with real Codex's TUI in a pseudo-terminal: the native `scout` (granted nothing) names
 * `guarded.write`, a tool of its process whose every call Codex asks about; the wire turns the
 * call away in the model's stream, so the scout's model reads the refusal, no prompt appears, the
 * server never sees the call and `session calls` records it as the scout's. The lead's own call
 * of the same tool (granted to it) is asked about, as the lead's — the prompt the scout never got.
 */

import { describe, expect, it } from 'vitest';

import {
  guardedCalls,
  guardedRegistry,
  isScout,
  scoutScript,
  startRun,
} from '../../support/guarded-tui.js';
import { sessionCalls } from '../../support/session-calls.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { compact, folderTrustAnswerer } from '../../support/tui.js';
import { profileToml, runInWorld, waitFor } from '../../support/world.js';

// the lead's own call of the tool, granted to it: the person is asked
const script = scoutScript(120_000, () => [{ type: 'message', text: 'LEAD-DONE' }]);

const scripted = useScriptedSession(
  {
    registry: guardedRegistry,
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
    const tui = startRun(w, ['GO']);
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
      const logged = await guardedCalls(w.root);
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
