/**
 * The invariant checks of the scenario matrix on evidence built by hand (pure): the evidence a
 * correct session leaves passes, and each kind of breach — a role offered another's tools, a call
 * outside a grant reaching a server, a call or approval attributed to the wrong role, a wrong
 * exit code or status, a survivor, a leftover socket, a stack trace, the canary anywhere — is
 * reported.
 */
import { describe, expect, it } from 'vitest';

import type { ScenarioEvidence } from './scenario-evidence.js';
import { expectedCalls, expectedOffer } from './scenario-expected.js';
import { checkScenario } from './scenario-invariants.js';
import { scenarioMatrix, type Scenario } from './scenario-matrix.js';
import { teamRoles } from './scenario-team.js';

const CANARY = 'mmo-canary-0123456789abcdef';
const [SCENARIO] = scenarioMatrix({
  teams: [2],
  approvals: ['prompt-yes'],
  ends: ['natural'],
  versions: ['0.171'],
});

type Json = Record<string, unknown>;

/** What a session that keeps every invariant leaves. */
function goodEvidence(scenario: Scenario): ScenarioEvidence {
  const roles = teamRoles(scenario);
  const expected = expectedCalls(scenario);
  const split = (line: string) => {
    const [role = '', call = '', reason] = line.split(' ');
    const [server = '', tool = ''] = call.split('.');
    const marker = `${role}:${server}.${tool}`;
    return { role, server, tool, reason, marker, process: roles[role]?.process ?? '' };
  };
  const calls: Json[] = [
    ...expected.ok.map(split).map((c) => ({
      ...c,
      outcome: 'ok',
      arguments: { preview: JSON.stringify({ text: c.marker }) },
    })),
    ...expected.refused.map(split).map((c) => ({ ...c, outcome: 'blocked' })),
  ];
  const asked = expected.asked.map(split);
  return {
    scenario,
    canary: CANARY,
    exec: { code: 0, signal: null, stdout: 'LEAD-DONE\n', stderr: 'root (lead) started\n' },
    outputs: [],
    show: { status: 'ended', exit_code: 0 },
    calls,
    events: [
      ...expected.refused
        .map(split)
        .map((c) => ({ ...c, type: 'tool_call.refused', text: c.reason })),
      ...asked.map((c) => ({ ...c, type: 'approval.requested' })),
    ],
    approvals: asked.flatMap((c, i) => [
      {
        ...c,
        type: 'requested',
        id: `a${String(i)}`,
        arguments: JSON.stringify({ text: c.marker }),
      },
      { type: 'answered', id: `a${String(i)}`, decision: 'approve', how: 'cli' },
    ]),
    reached: expected.ok.map(split).map((c) => ({ server: c.server, text: c.marker })),
    requests: Object.values(roles).map((r) => ({ role: r.name, mcp: expectedOffer(r) })),
    requestText: '{"input":[]}',
    modelErrors: [],
    files: 'rendered config',
    leftovers: [],
    survivors: [],
    canaryHolders: ['4242 node echo-server.mjs --call-log /w/vault-calls.jsonl'],
  };
}

const check = (change: (e: ScenarioEvidence) => Partial<ScenarioEvidence>): string[] => {
  const good = goodEvidence(SCENARIO!);
  return checkScenario({ ...good, ...change(good) });
};

describe('the scenario invariants', () => {
  it('pass the evidence of a session that keeps them', () => {
    expect(checkScenario(goodEvidence(SCENARIO!))).toEqual([]);
  });

  it('report a role offered tools outside its grant, or a role that was never asked', () => {
    const lead = teamRoles(SCENARIO!).lead!;
    expect(
      check((e) => ({ requests: [...e.requests, { role: 'aide', mcp: expectedOffer(lead) }] })),
    ).toEqual([expect.stringMatching(/^offer: aide was offered .*mmo_mesh/)]);
    expect(check((e) => ({ requests: e.requests.filter((r) => r.role !== 'helper') }))).toEqual([
      'offer: role helper made no model request',
    ]);
  });

  it('report a call outside a grant that reached a server', () => {
    const found = check((e) => ({
      reached: [...e.reached, { server: 'vault', text: 'lead:vault.peek' }],
    }));
    expect(found).toEqual([expect.stringContaining('extra ["lead vault.peek"]')]);
  });

  it('report a call or an approval attributed to the wrong role', () => {
    const calls = check((e) => ({
      calls: e.calls.map((c) =>
        c.role === 'aide' && c.outcome === 'ok' ? { ...c, role: 'lead' } : c,
      ),
    }));
    expect(calls.some((v) => v.includes("aide's call lead notes.read is attributed to lead"))).toBe(
      true,
    );
    const approvals = check((e) => ({
      approvals: e.approvals.map((a) => (a.role === 'scribe' ? { ...a, role: 'aide' } : a)),
    }));
    expect(
      approvals.some((v) => v.includes('scribe:notes.write') && v.includes('asked as aide')),
    ).toBe(true);
  });

  it('take a request refused at the end as no call, and report one refused for another reason', () => {
    const request = (reason: string) => ({
      process: 'root',
      role: 'lead',
      server: 'notes',
      tool: '',
      method: `http:${reason}`,
      outcome: 'blocked',
      reason,
    });
    const event = (reason: string) => ({
      ...request(reason),
      type: 'tool_call.refused',
      text: reason,
    });
    expect(
      check((e) => ({
        calls: [...e.calls, request('session-ended')],
        events: [...e.events, event('session-ended')],
      })),
    ).toEqual([]);
    expect(
      check((e) => ({
        calls: [...e.calls, request('not-authorized')],
        events: [...e.events, event('not-authorized')],
      })),
    ).toEqual([
      'calls.jsonl: request http:not-authorized of lead to notes refused not-authorized',
      'session logs: request http:not-authorized of lead to notes refused not-authorized',
    ]);
  });

  it('report an answer other than the mode gives', () => {
    const found = check((e) => ({
      approvals: e.approvals.map((a) => (a.type === 'answered' ? { ...a, decision: 'deny' } : a)),
    }));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((v) => v.includes('answered deny/cli, expected approve/cli'))).toBe(true);
  });

  it('report an exit code or status other than the documented one', () => {
    expect(check((e) => ({ exec: { ...e.exec, code: 1 } }))).toEqual([
      'exit: 1/null, expected 0/null',
    ]);
    expect(check(() => ({ show: { status: 'stopped' } }))).toEqual([
      'status: stopped, expected ended',
    ]);
  });

  it('report a survivor, a leftover socket and a stack trace', () => {
    expect(check(() => ({ survivors: ['77 codex app-server'] }))).toEqual([
      'survivor: 77 codex app-server',
    ]);
    expect(check(() => ({ leftovers: ['approvals.sock'] }))).toEqual([
      'left in the session: approvals.sock',
    ]);
    const trace = 'TypeError: x\n    at run (/w/dist/cli/main.js:10:5)\n';
    expect(check((e) => ({ exec: { ...e.exec, stderr: trace } }))).toEqual([
      'a stack trace in an output',
    ]);
  });

  it('report the canary in an output, a file, a model request or a process of the session', () => {
    expect(check(() => ({ outputs: [`token ${CANARY}`] }))).toEqual(['canary in an output']);
    expect(check(() => ({ files: `x ${CANARY}` }))).toEqual([
      'canary in a file under the data, state, work or home directory',
    ]);
    expect(check(() => ({ requestText: CANARY }))).toEqual(['canary in a model request']);
    expect(check((e) => ({ canaryHolders: [...e.canaryHolders, '88 codex app-server'] }))).toEqual([
      'canary held by a process: 88 codex app-server',
    ]);
  });
});
