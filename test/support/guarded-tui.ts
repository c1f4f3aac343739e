/**
 * What the tests of an interactive `run` share: the `guarded` server (its one tool `write`, which
 * Codex asks about, logging every call that reaches it), a lead whose native `scout` calls it, and
 * `run` started in a pseudo-terminal.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { ModelRequest, ScriptedItem } from '../../src/runtime/codex/scripted-model.js';
import { functionCall } from './scripted-model-fixture.js';
import { startTui, type Tui } from './tui.js';
import { CLI, echoServer, withDirArgs, type World } from './world.js';

const CALL_LOG = 'guarded-calls.jsonl';

/** The registry of `guarded`, logging its calls under `root`. */
export function guardedRegistry(root: string): string {
  return echoServer('guarded', {
    tools: 'write!',
    approval: 'prompt',
    args: ['--call-log', join(root, CALL_LOG)],
  });
}

/** Every call that reached `guarded` so far, as its log lines. */
export function guardedCalls(root: string): Promise<string> {
  return readFile(join(root, CALL_LOG), 'utf8').catch(() => '');
}

export const isScout = (r: ModelRequest): boolean =>
  r.developerTexts.some((t) => t.includes('ROLE-SCOUT'));

/**
 * The lead spawns its native `scout` and waits for it (up to `waitMs`), then calls
 * `guarded.write` itself and ends with `leadEnd`; the scout calls `guarded.write` and reports what
 * it read.
 */
export function scoutScript(
  waitMs: number,
  leadEnd: (request: ModelRequest) => ScriptedItem[],
): (request: ModelRequest) => ScriptedItem[] {
  return (request) => {
    const step = request.toolOutputs.length;
    if (isScout(request)) {
      if (step === 0) return [functionCall('mcp__guarded', 'write', { text: 'scout-writes' })];
      return [{ type: 'message', text: `SCOUT-READ ${request.toolOutputs[0]?.output ?? ''}` }];
    }
    if (step === 0) {
      return [
        functionCall('multi_agent_v1', 'spawn_agent', { agent_type: 'scout', message: 'go' }),
      ];
    }
    if (step === 1) {
      const id = (JSON.parse(request.toolOutputs[0]?.output ?? '{}') as { agent_id?: string })
        .agent_id;
      return [
        functionCall('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: waitMs }),
      ];
    }
    // the lead's own call of the tool
    if (step === 2) return [functionCall('mcp__guarded', 'write', { text: 'lead-writes' })];
    return leadEnd(request);
  };
}

/** `codex-mmo run` of `w`'s pack in a 160×50 pseudo-terminal, `codexArgs` after `--`. */
export function startRun(w: World, codexArgs: readonly string[]): Tui {
  return startTui(
    process.execPath,
    [CLI, ...withDirArgs(w, ['run', w.packDir, '--', ...codexArgs])],
    {
      cwd: w.workDir,
      env: w.env,
      cols: 160,
      rows: 50,
    },
  );
}
