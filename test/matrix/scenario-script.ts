/**
 * The scripted model that plays every role of a scenario's team. Each role's model first calls
 * every tool of the registry and a tool of a server no one has (`callPlan`), then starts its
 * children and waits for them: lead → native `aide` (which starts the nested `scribe`) → the
 * participant `worker` through `mmo_mesh` (which starts its native `helper`). In an early-ending
 * scenario `helper` ends by calling a writing tool left pending (prompt modes) and then waits
 * forever, which is when the runner ends the session.
 */
import type { ModelRequest, ScriptedItem } from '../../src/runtime/codex/scripted-model.js';
import type { Scenario } from './scenario-matrix.js';
import { PARTICIPANT_ID, callMarker, callPlan, finalPendingCall } from './scenario-team.js';

/** Most specific first: a sub-agent's input may also carry its parent's texts. */
const ROLES = ['scribe', 'helper', 'aide', 'worker', 'lead'] as const;

export function roleOfRequest(request: ModelRequest): string | undefined {
  const text = request.developerTexts.join('\n');
  return ROLES.find((r) => text.includes(`ROLE-${r.toUpperCase()}`));
}

const call = (namespace: string, name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});

const agentId = (output: string | undefined): string =>
  (JSON.parse(output ?? '{}') as { agent_id?: string }).agent_id ?? '';

const nativeSteps = (native: string): ((r: ModelRequest) => ScriptedItem)[] => [
  () => call('multi_agent_v1', 'spawn_agent', { agent_type: native, message: `work as ${native}` }),
  (r) =>
    call('multi_agent_v1', 'wait_agent', {
      targets: [agentId(r.toolOutputs.at(-1)?.output)],
      timeout_ms: 240_000,
    }),
];

const CHILD_STEPS: Readonly<Record<string, ((r: ModelRequest) => ScriptedItem)[]>> = {
  lead: [
    ...nativeSteps('aide'),
    () => call('mcp__mmo_mesh', 'spawn_participant', { role: 'worker', task: 'work as worker' }),
    () => call('mcp__mmo_mesh', 'wait_participant', { participant: PARTICIPANT_ID }),
  ],
  aide: nativeSteps('scribe'),
  worker: nativeSteps('helper'),
};

export interface ScenarioScript {
  readonly handler: (request: ModelRequest) => ScriptedItem[] | Promise<ScriptedItem[]>;
  /** Resolves when `helper` has reached its last step (early-ending scenarios end there). */
  readonly lastStep: Promise<void>;
  /** Answers a held request, so nothing waits on the model after the scenario. */
  release(): void;
}

export function scenarioScript(scenario: Scenario): ScenarioScript {
  const plan = callPlan();
  const final = finalPendingCall(scenario);
  let reached: () => void = () => undefined;
  const lastStep = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const held: (() => void)[] = [];
  const handler = (request: ModelRequest): ScriptedItem[] | Promise<ScriptedItem[]> => {
    const role = roleOfRequest(request);
    if (role === undefined) return [{ type: 'message', text: 'who am I?' }];
    let step = request.toolOutputs.length;
    const planned = plan[step];
    if (planned !== undefined) {
      const [server, tool] = planned;
      return [call(`mcp__${server}`, tool, { text: callMarker(role, server, tool) })];
    }
    step -= plan.length;
    const child = CHILD_STEPS[role]?.[step];
    if (child !== undefined) return [child(request)];
    step -= CHILD_STEPS[role]?.length ?? 0;
    if (role === 'helper' && scenario.end !== 'natural') {
      if (final !== undefined && step === 0) {
        const [server, tool] = final;
        reached();
        return [call(`mcp__${server}`, tool, { text: callMarker(role, server, tool, ':final') })];
      }
      reached();
      return new Promise((resolve) => {
        held.push(() => {
          resolve([{ type: 'message', text: 'HELPER-LATE' }]);
        });
      });
    }
    if (role === 'helper') reached();
    return [{ type: 'message', text: `${role.toUpperCase()}-DONE` }];
  };
  return {
    handler,
    lastStep,
    release: () => {
      for (const r of held.splice(0)) r();
    },
  };
}
