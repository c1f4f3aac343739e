/**
 * What a scenario must show (pure): the MCP tools each role's model is offered, what comes of
 * each call the roles make (it reaches its server, or the reason it is refused), the approvals
 * asked and how they are answered, and the status and exit code the README documents for the
 * end path.
 */
import { MESH_TOOL_NAMES } from '../../src/runtime/protocol/mesh-protocol.js';
import type { Scenario } from './scenario-matrix.js';
import {
  WRITING_TOOLS,
  callPlan,
  finalPendingCall,
  hasTool,
  processUnion,
  teamRoles,
  type TeamRole,
} from './scenario-team.js';

/** The same record with its keys in sorted order (for comparing JSON texts). */
export function sortedKeys<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** Server → sorted tools each request of the role must offer (its grant, `mmo_mesh` if any). */
export function expectedOffer(role: TeamRole): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [server, tools] of Object.entries(role.grant)) out[server] = [...tools].sort();
  if (role.mesh) out.mmo_mesh = [...MESH_TOOL_NAMES].sort();
  return sortedKeys(out);
}

/** `ok` (the call reaches its server) or the reason `session calls` records for a refusal. */
export function expectedOutcome(scenario: Scenario, role: string, server: string, tool: string) {
  const roles = teamRoles(scenario);
  const r = roles[role];
  if (r === undefined) throw new Error(`no role ${role}`);
  if (!hasTool(r.grant, server, tool)) {
    return hasTool(processUnion(roles, r.process), server, tool)
      ? 'tool-not-granted-to-role'
      : 'tool-not-offered';
  }
  if (!WRITING_TOOLS.has(`${server}.${tool}`) || scenario.approval === 'auto') return 'ok';
  if (scenario.approval === 'prompt-yes') return 'ok';
  return scenario.approval === 'prompt-no' ? 'approval-denied' : 'approval-expired';
}

export interface ExpectedCalls {
  /** `role server.tool` of every call that reaches its server. */
  readonly ok: string[];
  /** `role server.tool reason` of every refused call. */
  readonly refused: string[];
  /** `role server.tool` of every approval request. */
  readonly asked: string[];
}

/** Every call of every role, the final pending one included (kill -9 leaves it unrecorded). */
export function expectedCalls(scenario: Scenario): ExpectedCalls {
  const ok: string[] = [];
  const refused: string[] = [];
  const asked: string[] = [];
  for (const role of Object.keys(teamRoles(scenario))) {
    for (const [server, tool] of callPlan()) {
      const outcome = expectedOutcome(scenario, role, server, tool);
      const call = `${role} ${server}.${tool}`;
      if (outcome === 'ok') ok.push(call);
      else refused.push(`${call} ${outcome}`);
      const granted = outcome === 'ok' || outcome.startsWith('approval-');
      if (granted && scenario.approval !== 'auto' && WRITING_TOOLS.has(`${server}.${tool}`)) {
        asked.push(call);
      }
    }
  }
  const final = finalPendingCall(scenario);
  if (final !== undefined) {
    asked.push(`helper ${final.join('.')}`);
    if (scenario.end !== 'kill-supervisor') refused.push(`helper ${final.join('.')} session-ended`);
  }
  return { ok: ok.sort(), refused: refused.sort(), asked: asked.sort() };
}

/** How each approval request is answered: `decision/how`. */
export function expectedAnswer(scenario: Scenario, final: boolean): string | undefined {
  if (final) return scenario.end === 'kill-supervisor' ? undefined : 'deny/session-ended';
  if (scenario.approval === 'prompt-yes') return 'approve/cli';
  if (scenario.approval === 'prompt-no') return 'deny/cli';
  return 'deny/timeout';
}

/** The documented end of the session: exit code (or signal) and the recorded status. */
export function expectedEnd(scenario: Scenario): {
  code: number | null;
  signal: string | null;
  status: string;
} {
  switch (scenario.end) {
    case 'natural':
      return { code: 0, signal: null, status: 'ended' };
    case 'kill-supervisor':
      // the record cannot be written: shown as failed, the supervisor gone
      return { code: null, signal: 'SIGKILL', status: 'failed' };
    default:
      return { code: 1, signal: null, status: 'stopped' };
  }
}
