/**
 * The names smoke compares: the namespaces Codex offered (as measured on every supported version:
 * `mcp__` and the ID with each character outside [A-Za-z0-9_] as `_`) read back to server IDs of
 * every shape the registry allows, tool names read back to the operator's, and what does not
 * stand for a granted server or tool shown as received but not granted.
 */
import { describe, expect, it } from 'vitest';

import {
  CODEX_VERSIONS,
  type CodexVersionFacts,
} from '../../../src/config/codex/codex-versions.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import type { ResolvedPlan } from '../../../src/config/profile/types.js';
import { SERVER_ID_PATTERN } from '../../../src/config/registry/types.js';
import { offeredToolsOf, type ModelRequest } from '../../../src/runtime/codex/scripted-model.js';
import {
  describeScope,
  measurement,
  roleDiagnostics,
} from '../../../src/features/smoke/smoke-report.js';
import { modelToolName, toOperatorNames } from '../../../src/features/smoke/smoke.js';
import { profile, role, servers, stdio } from '../../support/build.js';

/**
 * Registry server IDs of every shape `SERVER_ID_PATTERN` admits, each with the namespace both
 * supported Codex versions were measured offering it under (written out, not computed).
 */
const SHAPES: readonly (readonly [string, string])[] = [
  ['a', 'mcp__a'],
  ['everything-http', 'mcp__everything_http'],
  ['notes_2', 'mcp__notes_2'],
  ['x9', 'mcp__x9'],
  ['b--c', 'mcp__b__c'],
  ['e-', 'mcp__e_'],
  ['f_', 'mcp__f_'],
  ['g__', 'mcp__g__'],
  ['q---', 'mcp__q___'],
  ['z_-_z', 'mcp__z___z'],
  ['h1-2_3', 'mcp__h1_2_3'],
  [`l${'-'.repeat(62)}m`, `mcp__l${'_'.repeat(62)}m`],
];

const ns = (name: string, tools: string[]): Record<string, unknown> => ({
  type: 'namespace',
  name,
  tools: tools.map((t) => ({ type: 'function', name: t })),
});

const request = (tools: unknown[]): ModelRequest => {
  const body = { tools, input: [] };
  return {
    index: 0,
    body,
    instructions: '',
    offeredTools: offeredToolsOf(body),
    hasToolOutput: false,
    headers: {},
    developerTexts: [],
    userTexts: [],
    toolOutputs: [],
    threadId: undefined,
    parentThreadId: undefined,
    agentName: undefined,
  };
};

/**
 * A plan whose root `lead` is granted `grants` of `ids` (servers offering `echo` and `get-sum`);
 * its native role `peer` is granted the rest, so the process has every one of them.
 */
function planOf(ids: readonly string[], grants: readonly string[]): ResolvedPlan {
  const defs = servers(...ids.map((id) => stdio(id, ['echo', 'get-sum'])));
  const of = (list: readonly string[]) => Object.fromEntries(list.map((id) => [id, {}]));
  const p = profile('lead', [
    role('lead', { native_agents: ['peer'], grants: of(grants) }),
    role('peer', { grants: of(ids.filter((id) => !grants.includes(id))) }),
  ]);
  const { plan, diagnostics } = resolvePlan(p, defs);
  expect(diagnostics).toEqual([]);
  return plan!;
}

/** What smoke measures for the root when its first request offered `tools`. */
function measure(plan: ResolvedPlan, tools: unknown[], facts: CodexVersionFacts) {
  const m = measurement(
    plan,
    { first: new Map([['lead/lead', request(tools)]]), failures: [], mask: (t) => t },
    plan.processes[0]!,
    'lead',
    { via: 'session', withMesh: false },
    facts,
  );
  return { ...m, codes: roleDiagnostics('lead', m).map((d) => d.code) };
}

describe('smoke reads every server ID shape back from the namespace Codex offers', () => {
  it('covers IDs the registry allows, and only those', () => {
    for (const [id] of SHAPES) expect(SERVER_ID_PATTERN.test(id), id).toBe(true);
  });

  for (const facts of CODEX_VERSIONS) {
    for (const [id, namespace] of SHAPES) {
      it(`Codex ${facts.series}: \`${id}\` offered as ${namespace.length > 30 ? 'a 64-character name' : namespace} passes`, () => {
        const plan = planOf([id], [id]);
        const m = measure(plan, [ns(namespace, ['echo', 'get_sum'])], facts);
        expect(m.received).toEqual({ [id]: ['echo', 'get-sum'] });
        expect(m.extra).toEqual({});
        expect(m.missing).toEqual({});
        expect(m.codes).toEqual([]);
      });
    }

    it(`Codex ${facts.series}: every shape at once in one process, each to its own server`, () => {
      const ids = SHAPES.map(([id]) => id);
      const plan = planOf(ids, ids);
      const m = measure(
        plan,
        SHAPES.map(([, namespace]) => ns(namespace, ['echo', 'get_sum'])),
        facts,
      );
      expect(Object.keys(m.received).sort()).toEqual([...ids].sort());
      expect(m.codes).toEqual([]);
    });

    it(`Codex ${facts.series}: a and a__ (a namespace that begins another) stay apart`, () => {
      const plan = planOf(['a', 'a__'], ['a']);
      const m = measure(plan, [ns('mcp__a', ['echo']), ns('mcp__a__', ['get_sum'])], facts);
      expect(m.received).toEqual({ a: ['echo'], a__: ['get-sum'] });
      expect(m.extra).toEqual({ a__: ['get-sum'] });
      expect(m.missing).toEqual({ a: ['get-sum'] });
      expect(m.codes).toEqual(['smoke-tool-extra', 'smoke-tool-missing']);
    });

    it(`Codex ${facts.series}: a hyphenated server the role was not granted is extra, by its ID`, () => {
      const plan = planOf(['a-b', 'c-d'], ['a-b']);
      const m = measure(
        plan,
        [ns('mcp__a_b', ['echo', 'get_sum']), ns('mcp__c_d', ['echo'])],
        facts,
      );
      expect(m.extra).toEqual({ 'c-d': ['echo'] });
      expect(m.missing).toEqual({});
      expect(m.codes).toEqual(['smoke-tool-extra']);
    });

    it(`Codex ${facts.series}: a namespace that stands for no server of the process is extra as offered`, () => {
      const plan = planOf(['a-b'], ['a-b']);
      // the ID itself is not a name Codex offers; a hashed name stands for no server
      const m = measure(
        plan,
        [
          ns('mcp__a-b', ['echo']),
          ns('mcp__a_b_0123456789ab', ['get_sum']),
          ns('mcp__Everything_http', ['echo']),
        ],
        facts,
      );
      expect(m.received).toEqual({
        'mcp__a-b': ['echo'],
        mcp__a_b_0123456789ab: ['get_sum'],
        mcp__Everything_http: ['echo'],
      });
      expect(m.missing).toEqual({ 'a-b': ['echo', 'get-sum'] });
      expect(m.codes).toEqual(['smoke-tool-extra', 'smoke-tool-missing']);
    });
  }
});

describe('toOperatorNames', () => {
  const plan = {
    servers: {
      everything: {
        id: 'everything',
        transport: 'stdio',
        command: 'x',
        enabled_tools: ['get-sum', 'echo', 'a.b'],
        default_tools_approval_mode: 'prompt',
      },
    },
  } as unknown as ResolvedPlan;
  const facts = CODEX_VERSIONS[0]!;

  it('maps the model-safe names Codex offers back to operator tool names', () => {
    expect(modelToolName('get-sum')).toBe('get_sum');
    expect(
      toOperatorNames({ everything: ['get_sum', 'echo', 'a_b'] }, plan, ['everything'], facts),
    ).toEqual({
      everything: ['a.b', 'echo', 'get-sum'],
    });
  });
  it('keeps names that stand for no operator tool, so they show up as extra', () => {
    expect(
      toOperatorNames({ everything: ['get_env'], other: ['x'] }, plan, ['everything'], facts),
    ).toEqual({
      everything: ['get_env'],
      mcp__other: ['x'],
    });
  });
});

describe('describeScope', () => {
  const plan = (mesh: number | null): ResolvedPlan =>
    ({
      root: 'lead',
      roles: { lead: { mesh_tool_timeout_sec: mesh } },
      processes: [{ roles: ['lead'] }],
    }) as unknown as ResolvedPlan;
  it('says the root ran with mmo_mesh only when it has a spawn or control grant', () => {
    expect(describeScope(plan(60), new Map(), [])).toContain(
      "The session root 'lead' ran as a Codex app-server with its mmo_mesh.",
    );
    const without = describeScope(plan(null), new Map(), []);
    expect(without.join('\n')).not.toContain('with its mmo_mesh');
    expect(without).toContain(
      "The session root 'lead' ran as a Codex app-server, without mmo_mesh (it has no spawn or control grant).",
    );
  });
});
