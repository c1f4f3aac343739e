/**
 * `mmo_mesh` acts with the calling thread's role, with real Codex in a real `codex-mmo exec`
 * session: the root spawns two native roles; one without a spawn grant calls spawn_participant
 * anyway (it is not offered mmo_mesh, as a prompt-injected model would) and is refused by the
 * broker although the root may spawn that role; the other, with a spawn grant of its own the
 * root lacks, is offered the mesh tools described for its own list and starts its participant.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, profileToml, runInWorld } from '../../support/world.js';

const PROFILE = profileToml('meshnative', 'lead', {
  lead: { natives: ['scout', 'planner'], spawn: ['helper'], grants: { notes: {} } },
  scout: { grants: { notes: { tools: ['list'] } } },
  planner: { spawn: ['worker'], control: ['worker'] },
  helper: {},
  worker: {},
});

type Agent = 'lead' | 'scout' | 'planner' | 'helper' | 'worker' | 'other';

function agentOf(request: ModelRequest): Agent {
  const text = request.developerTexts.join('\n');
  for (const agent of ['scout', 'planner', 'helper', 'worker'] as const) {
    if (text.includes(`ROLE-${agent.toUpperCase()}`)) return agent;
  }
  return text.includes('ROLE-LEAD') ? 'lead' : 'other';
}

const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});

const agentId = (output: string | undefined): string =>
  (JSON.parse(output ?? '{}') as { agent_id?: string }).agent_id ?? '';

function script(request: ModelRequest): ScriptedItem[] {
  const outputs = request.toolOutputs;
  const agent = agentOf(request);
  if (agent === 'scout' && outputs.length === 0) {
    return [call('mcp__mmo_mesh', 'spawn_participant', { role: 'helper', task: 'from scout' })];
  }
  if (agent === 'planner' && outputs.length === 0) {
    return [call('mcp__mmo_mesh', 'spawn_participant', { role: 'worker', task: 'from planner' })];
  }
  if (agent === 'planner' && outputs.length === 1) {
    return [call('mcp__mmo_mesh', 'wait_participant', { participant: 'worker-1' })];
  }
  if (agent !== 'lead') return [{ type: 'message', text: `${agent.toUpperCase()}-DONE` }];
  switch (outputs.length) {
    case 0:
      return [call('multi_agent_v1', 'spawn_agent', { agent_type: 'scout', message: 'look' })];
    case 2:
      return [call('multi_agent_v1', 'spawn_agent', { agent_type: 'planner', message: 'plan' })];
    case 1:
    case 3:
      return [
        call('multi_agent_v1', 'wait_agent', {
          targets: [agentId(outputs.at(-1)?.output)],
          timeout_ms: 60_000,
        }),
      ];
    default:
      return [{ type: 'message', text: 'LEAD-DONE' }];
  }
}

let result: Awaited<ReturnType<typeof runInWorld>>;

const scripted = useScriptedSession(
  { registry: echoServer('notes', { tools: 'list,add' }), profile: PROFILE },
  script,
);

beforeAll(async () => {
  result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'lead the work']);
}, 240_000);

const requestsOf = (agent: Agent): ModelRequest[] =>
  scripted.model.requests.filter((r) => agentOf(r) === agent);

/** The description of a mesh tool as the request offers it. */
function meshDescription(request: ModelRequest, tool: string): string | undefined {
  const tools = (request.body.tools ?? []) as { name?: string; tools?: unknown[] }[];
  const mesh = tools.find((t) => t.name === 'mcp__mmo_mesh');
  const found = (mesh?.tools ?? []) as { name?: string; description?: string }[];
  return found.find((t) => t.name === tool)?.description;
}

describe('mmo_mesh with the calling thread’s role', () => {
  it('runs to the end', () => {
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
  });

  it('offers mmo_mesh to each role with its own lists, and not to a role without them', () => {
    expect(meshDescription(requestsOf('lead')[0]!, 'spawn_participant')).toContain(
      'Roles you may spawn: helper.',
    );
    expect(requestsOf('scout')[0]!.offeredTools.mcp).toEqual({ notes: ['list'] });
    expect(Object.keys(requestsOf('planner')[0]!.offeredTools.mcp)).toEqual(['mmo_mesh']);
    expect(meshDescription(requestsOf('planner')[0]!, 'spawn_participant')).toContain(
      'Roles you may spawn: worker.',
    );
  });

  it("refuses a native role's spawn its own grant lacks, though its root may spawn that role", () => {
    const answer = requestsOf('scout')[1]?.toolOutputs[0]?.output ?? '';
    expect(answer).toContain("mmo_mesh refused: role 'scout' may not spawn role 'helper'");
    expect(requestsOf('helper')).toEqual([]);
  });

  it("honours a native role's own spawn grant, which its root lacks", () => {
    const answer = requestsOf('planner')[1]?.toolOutputs[0]?.output ?? '';
    expect(answer).toContain('Started participant worker-1 (role worker).');
    // and its control grant: it waits on the participant it started
    const waited = requestsOf('planner')[2]?.toolOutputs[1]?.output ?? '';
    // 0.149 prefixes the output with its wall time and may escape its newlines
    expect(waited).toMatch(/Participant worker-1 finished\. Final message:(\n|\\n)WORKER-DONE/);
    expect(requestsOf('worker').length).toBeGreaterThan(0);
  });
});
