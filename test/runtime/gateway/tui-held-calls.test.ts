/**
 * In an interactive `run`, the root's own tool calls that ask for approval are asked about by the
 * gateway, as the calling role, with real Codex's TUI in a pseudo-terminal: the native `scout`'s
 * call of `guarded.write` (mode `prompt`) shows a prompt that names role scout — Codex's own
 * prompt names no role — and runs once when the person allows it there; the lead's own call,
 * named as role lead, is denied with a reason from `session deny` in another terminal, never
 * reaches the server, and the lead's model reads the reason (Codex's TUI keeps the withdrawn
 * prompt until a key closes it; that late answer changes nothing). Both are in the session's
 * queue and records like any request.
 */
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { guardedCalls, guardedRegistry, scoutScript, startRun } from '../../support/guarded-tui.js';
import { sessionCalls } from '../../support/session-calls.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { compact, folderTrustAnswerer, typeUntil, type Tui } from '../../support/tui.js';
import { profileToml, runInWorld, waitFor } from '../../support/world.js';

const script = scoutScript(200_000, (request) => [
  { type: 'message', text: `LEAD-READ ${request.toolOutputs.at(-1)?.output ?? ''}` },
]);

const scripted = useScriptedSession(
  {
    registry: guardedRegistry,
    profile: profileToml('tui-held', 'lead', {
      lead: { natives: ['scout'], grants: { guarded: {} } },
      scout: { grants: { guarded: {} } },
    }),
  },
  script,
);

function prompted(tui: Tui, id: string, role: string): boolean {
  const text = compact(tui.text());
  return (
    text.includes(
      compact(
        `codex-mmo approval ${id}: role ${role} (in the session's root Codex) asks to call tool 'write' of MCP server 'guarded'.`,
      ),
    ) && text.includes('1.Allow')
  );
}

describe("the interactive root's calls, asked about by the gateway", () => {
  it('names the calling role, runs an allowed call once and tells the model a denial', async () => {
    const w = scripted.world;
    const before = scripted.model.requests.length;
    const tui = startRun(w, ['GO']);
    const screen = (error: unknown): Error =>
      new Error(`${String(error)}; the screen:\n${tui.text().slice(-4000)}`);
    try {
      const answerTrust = folderTrustAnswerer(tui, () => scripted.model.requests.length > before);
      await waitFor(() => {
        answerTrust();
        if (tui.child.exitCode !== null) throw new Error('the TUI ended');
        return prompted(tui, 'a1', 'scout');
      }, 240_000).catch((error: unknown) => {
        throw screen(error);
      });
      const id = /codex-mmo: session (\S+)/.exec(tui.text())?.[1] ?? '';
      // held: nothing reached the server, and the queue lists the scout's request
      expect(await guardedCalls(w.root)).not.toContain('scout-writes');
      const listed = await runInWorld(w, ['session', 'approvals', id, '--json']);
      expect(JSON.parse(listed.stdout)).toMatchObject({
        approvals: [{ id: 'a1', process: 'root', role: 'scout', server: 'guarded', tool: 'write' }],
      });

      // Allow at the TUI (typed again until it takes: a key during drawing can be lost)
      await typeUntil(tui, '1', async () => (await guardedCalls(w.root)).includes('scout-writes'));

      // the lead's own call: named as the lead's, denied from another terminal with a reason
      await waitFor(() => prompted(tui, 'a2', 'lead'), 120_000).catch((error: unknown) => {
        throw screen(error);
      });
      const denied = await runInWorld(w, [
        'session',
        'deny',
        id,
        'a2',
        '--reason',
        'not in this change',
      ]);
      expect(denied.code, denied.stderr).toBe(0);
      // Codex's TUI keeps a prompt the gateway withdrew until a key closes it (Deny here: the
      // request is answered already, so the late answer changes nothing)
      await typeUntil(tui, '2', () =>
        scripted.model.requests.some((r) => r.toolOutputs.length === 3),
      );
      const lead = scripted.model.requests.filter((r) => r.toolOutputs.length === 3).at(-1);
      expect(lead?.toolOutputs.at(-1)?.output).toContain('(reason: not in this change)');
      expect(lead?.toolOutputs.at(-1)?.output).toContain('[approval-denied]');
      expect(await guardedCalls(w.root)).not.toContain('lead-writes');
      expect(
        (await guardedCalls(w.root)).split('\n').filter((l) => l.includes('scout-writes')),
      ).toHaveLength(1);

      const records = (await readFile(join(w.stateDir, 'sessions', id, 'approvals.jsonl'), 'utf8'))
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records.filter((r) => r.type === 'answered')).toEqual([
        expect.objectContaining({
          id: 'a1',
          decision: 'approve',
          how: 'tui',
          by: userInfo().username,
        }),
        expect.objectContaining({ id: 'a2', decision: 'deny', how: 'cli' }),
      ]);
      const calls = await sessionCalls(w, id);
      expect(calls).toContainEqual(
        expect.objectContaining({ role: 'scout', tool: 'write', outcome: 'ok' }),
      );
      expect(calls).toContainEqual(
        expect.objectContaining({
          role: 'lead',
          tool: 'write',
          outcome: 'denied',
          reason: 'approval-denied',
        }),
      );
      const stopped = await runInWorld(w, ['session', 'stop', id]);
      expect(stopped.code, stopped.stderr).toBe(0);
    } finally {
      tui.child.kill('SIGKILL');
      await tui.exited;
    }
  }, 400_000);
});
