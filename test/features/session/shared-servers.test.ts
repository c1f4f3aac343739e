/**
 * A server the operator marked `shared = true`, in a real session with real Codex: the lead and
 * the worker it spawns are both granted it, with different tools. One instance serves both; each
 * process is offered only its own grant and its calls reach the server; `session show` names the
 * shared server and what sharing means.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, onlySession, profileToml, runInWorld } from '../../support/world.js';

const PROFILE = profileToml('sharing', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'], grants: { common: { tools: ['note'] } } },
  worker: { grants: { common: { tools: ['note', 'write'] } } },
});

const isWorker = (request: ModelRequest): boolean =>
  request.developerTexts.some((t) => t.includes('ROLE-WORKER'));

const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});

function script(request: ModelRequest): ScriptedItem[] {
  const step = request.toolOutputs.length;
  if (isWorker(request)) {
    return step === 0
      ? [call('mcp__common', 'write', { text: 'from-worker' })]
      : [{ type: 'message', text: 'WORKER-DONE' }];
  }
  switch (step) {
    case 0:
      return [call('mcp__common', 'note', { text: 'from-lead' })];
    case 1:
      return [call('mcp__mmo_mesh', 'spawn_participant', { role: 'worker', task: 'write' })];
    case 2:
      return [call('mcp__mmo_mesh', 'wait_participant', { participant: 'worker-1' })];
    default:
      return [{ type: 'message', text: 'LEAD-DONE' }];
  }
}

const scripted = useScriptedSession(
  {
    registry: (root) =>
      echoServer('common', {
        tools: 'note,write!',
        args: ['--pid-file', join(root, 'common-pids.txt')],
      }).replace('transport = "stdio"', 'transport = "stdio"\nshared = true'),
    profile: PROFILE,
  },
  script,
);

describe('a shared server in a session', () => {
  it('serves the lead and its worker from one instance, each with its own grant', async () => {
    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');

    const offered = (worker: boolean): unknown =>
      scripted.model.requests.find((r) => isWorker(r) === worker)?.offeredTools.mcp.common;
    expect(offered(false)).toEqual(['note']);
    expect(offered(true)).toEqual(['note', 'write']);
    const outputs = scripted.model.requests.flatMap((r) => r.toolOutputs.map((o) => o.output));
    expect(outputs.some((o) => o.includes('from-lead'))).toBe(true);
    expect(outputs.some((o) => o.includes('from-worker'))).toBe(true);

    const pids = await readFile(join(scripted.world.root, 'common-pids.txt'), 'utf8');
    expect(pids.trim().split('\n')).toHaveLength(1);

    const { record } = await onlySession(scripted.world);
    expect(record.shared_servers).toEqual(['common']);
    const shown = await runInWorld(scripted.world, ['session', 'show', String(record.id)]);
    expect(shown.stdout).toMatch(/shared servers:\s+common \(one instance for every process/);
  }, 120_000);
});
