/**
 * The model wire narrows a role to its grants by the namespace names Codex gives servers (`a-b`
 * as `mcp__a_b`, measured on every supported version): a role granted a hyphenated server keeps
 * exactly that server's granted tools, and no namespace that merely resembles one of its servers
 * (`mcp__a__` for `a`, the raw `mcp__a-b`, a hashed name, an ambiguous flat name) is read as it.
 */
import { describe, expect, it } from 'vitest';

import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import { wireProcess, type WireProcess } from '../../../src/config/compile/role-grants.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import { filterTools } from '../../../src/runtime/model-wire/filter-tools.js';
import { profile, role, servers, stdio } from '../../support/build.js';

const IDS = ['a-b', 'a', 'a__', 'c-d', 'x_y-z'];

/**
 * One process: the root `lead` is granted `a-b` (tool `one` only) and `a` (tool `one`); its
 * native role `peer` is granted everything, so the process has every server of `IDS`.
 */
function process(): WireProcess {
  const defs = servers(...IDS.map((id) => stdio(id, ['one', 'two-x'])));
  const p = profile('lead', [
    role('lead', {
      native_agents: ['peer'],
      grants: { 'a-b': { enabled_tools: ['one'] }, a: { enabled_tools: ['one'] } },
    }),
    role('peer', { grants: Object.fromEntries(IDS.map((id) => [id, {}])) }),
  ]);
  const { plan, diagnostics } = resolvePlan(p, defs);
  expect(diagnostics).toEqual([]);
  return wireProcess(p, plan!, 'lead')!;
}

const ns = (name: string, tools: string[]): Record<string, unknown> => ({
  type: 'namespace',
  name,
  tools: tools.map((t) => ({ type: 'function', name: t, description: `${name}.${t}` })),
});

/** A request as Codex sends it for this process, plus names no server of it is offered under. */
const REQUEST = [
  { type: 'function', name: 'exec_command' },
  ns('mcp__a_b', ['one', 'two_x']),
  ns('mcp__a', ['one', 'two_x']),
  ns('mcp__a__', ['one', 'two_x']),
  ns('mcp__c_d', ['one', 'two_x']),
  ns('mcp__x_y_z', ['one', 'two_x']),
  // not names Codex gives these servers: the raw ID, a hashed name, a case variant
  ns('mcp__a-b', ['one']),
  ns('mcp__a_b_0123456789ab', ['one']),
  ns('mcp__A_b', ['one']),
  // flat functions: `a-b`'s `one`, and one that could be `a`'s `__one` or `a__`'s `one`
  { type: 'function', name: 'mcp__a_b__one' },
  { type: 'function', name: 'mcp__c_d__one' },
  { type: 'function', name: 'mcp__a____one' },
];

describe('filterTools with server IDs of every shape', () => {
  for (const facts of CODEX_VERSIONS) {
    it(`Codex ${facts.series}: a role granted a-b and a gets mcp__a_b's and mcp__a's granted tools, nothing else`, () => {
      const wire = process();
      const lead = filterTools(REQUEST, wire.roles.lead, wire.servers, false, facts);
      expect(lead.tools).toEqual([
        { type: 'function', name: 'exec_command' },
        ns('mcp__a_b', ['one']),
        ns('mcp__a', ['one']),
        { type: 'function', name: 'mcp__a_b__one' },
      ]);
      expect(lead.kept).toEqual({ 'a-b': ['one'], a: ['one'] });
      expect(lead.removed).toEqual([
        'a-b.two_x',
        'a.two_x',
        'a__',
        'c-d',
        'x_y-z',
        'a-b',
        'a_b_0123456789ab',
        'A_b',
        'c-d.one',
        'mcp__a____one',
      ]);
    });

    it(`Codex ${facts.series}: a role granted every server gets each under its own namespace`, () => {
      const wire = process();
      const peer = filterTools(REQUEST, wire.roles.peer, wire.servers, false, facts);
      expect(peer.kept).toEqual(
        Object.fromEntries(IDS.map((id) => [id, ['one', 'two_x']] as const)),
      );
      // still none of the look-alikes, and no flat name that stands for two servers
      const names = peer.tools.map((t) => (t as { name: string }).name);
      expect(names).not.toContain('mcp__a-b');
      expect(names).not.toContain('mcp__a_b_0123456789ab');
      expect(names).not.toContain('mcp__A_b');
      expect(names).not.toContain('mcp__a____one');
    });

    it(`Codex ${facts.series}: an unattributed request keeps no server`, () => {
      const wire = process();
      const none = filterTools(REQUEST, undefined, wire.servers, false, facts);
      expect(none.kept).toEqual({});
      expect(none.tools).toEqual([{ type: 'function', name: 'exec_command' }]);
    });
  }
});
