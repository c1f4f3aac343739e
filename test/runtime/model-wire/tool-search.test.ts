/**
 * Tool-search results narrowed to a role (pure): each `tool_search_output` item's tools keep only
 * what the role was granted (whole servers and single tools removed, read back the way each Codex
 * version names servers), no role keeps no MCP tool, other items are left alone, and an input with
 * nothing to remove is returned as it was.
 */
import { describe, expect, it } from 'vitest';

import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import type { WireRole } from '../../../src/config/compile/role-grants.js';
import { filterTools } from '../../../src/runtime/model-wire/filter-tools.js';
import {
  narrowSearchOutputs as narrowWith,
  narrowSearchSources,
  searchedTools,
} from '../../../src/runtime/model-wire/tool-search.js';

type Codex = (typeof CODEX_VERSIONS)[number];

/** The search results narrowed as the wire narrows `tools` (servers, tools, resource functions). */
function narrowSearchOutputs(
  input: unknown,
  who: WireRole | undefined,
  servers: string[],
  codex: Codex,
  resources = false,
): { input: unknown; removed: string[] } {
  return narrowWith(input, (list) => {
    const out = filterTools(list, who, servers, resources, codex);
    return { tools: out.tools, removed: [...out.removed, ...out.functionsRemoved] };
  });
}

const role = (tools: Record<string, string[]>): WireRole => ({
  role: 'scout',
  instructions: 'ROLE-SCOUT',
  tools,
  mesh: false,
  spawn: [],
  control: [],
  native: [],
});

const ns = (name: string, tools: string[]): unknown => ({
  type: 'namespace',
  name,
  description: `Tools in the ${name} namespace.`,
  tools: tools.map((t) => ({ type: 'function', name: t, defer_loading: true })),
});

const found = (tools: unknown[]): Record<string, unknown> => ({
  type: 'tool_search_output',
  call_id: 'call_1',
  status: 'completed',
  execution: 'client',
  tools,
});

const names = (input: unknown): string[] =>
  searchedTools(input).flatMap((t) => {
    const n = t as { name: string; tools: { name: string }[] };
    return n.tools.map((x) => `${n.name}.${x.name}`);
  });

describe('tool-search results', () => {
  for (const codex of CODEX_VERSIONS) {
    it(`keep only what the role was granted (${codex.series})`, () => {
      const servers = ['notes', 'web-search', 'other'];
      const input = [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
        { type: 'tool_search_call', call_id: 'call_1', execution: 'client', arguments: {} },
        found([ns('mcp__notes', ['list', 'add']), ns('mcp__other', ['ping'])]),
        found([ns('mcp__web_search', ['q', 'more'])]),
      ];
      const out = narrowSearchOutputs(
        input,
        role({ notes: ['list'], 'web-search': ['q'] }),
        servers,
        codex,
      );
      expect(names(out.input)).toEqual(['mcp__notes.list', 'mcp__web_search.q']);
      expect(out.removed).toEqual(['notes.add', 'other', 'web-search.more']);
      expect((out.input as unknown[]).slice(0, 2)).toEqual(input.slice(0, 2));
      // an unattributed thread: every MCP tool goes
      expect(names(narrowSearchOutputs(input, undefined, servers, codex).input)).toEqual([]);
    });
  }

  it('drops the generic resource functions like the request does', () => {
    const codex = CODEX_VERSIONS[0];
    if (codex === undefined) throw new Error('no Codex version');
    const input = [
      found([ns('mcp__notes', ['list']), { type: 'function', name: 'read_mcp_resource' }]),
    ];
    const kept = narrowSearchOutputs(input, role({ notes: ['list'] }), ['notes'], codex, true);
    expect(kept.input).toBe(input);
    const gone = narrowSearchOutputs(input, role({ notes: ['list'] }), ['notes'], codex);
    expect(gone.removed).toEqual(['read_mcp_resource']);
    expect(JSON.stringify(gone.input)).not.toContain('read_mcp_resource');
  });

  it("narrows the servers Codex 0.149's tool_search description names as its sources", () => {
    const codex = CODEX_VERSIONS.find((c) => c.series === '0.149');
    if (codex === undefined) throw new Error('no Codex 0.149');
    const description =
      '# Tool discovery\n\nYou have access to tools from the following sources:\n- Multi-agent tools: Spawn and manage sub-agents.\n- notes\n- other: its own words\n- my__srv\nSome of the tools may not have been provided to you upfront.\n- other';
    const tools = [
      { type: 'function', name: 'exec_command' },
      { type: 'tool_search', description },
    ];
    const out = narrowSearchSources(
      tools,
      role({ notes: ['list'] }),
      ['notes', 'other', 'my__srv'],
      codex,
    );
    expect(out.removed).toEqual(['other', 'my__srv']);
    expect((out.tools[1] as { description: string }).description).toBe(
      '# Tool discovery\n\nYou have access to tools from the following sources:\n- Multi-agent tools: Spawn and manage sub-agents.\n- notes\nSome of the tools may not have been provided to you upfront.\n- other',
    );
    expect(out.tools[0]).toBe(tools[0]);
    // a role granted them all: the same array back
    const all = role({ notes: [], other: [], my__srv: [] });
    expect(narrowSearchSources(tools, all, ['notes', 'other', 'my__srv'], codex).tools).toBe(tools);
  });

  it('returns the input itself when nothing is removed', () => {
    const codex = CODEX_VERSIONS[0];
    if (codex === undefined) throw new Error('no Codex version');
    const input = [found([ns('mcp__notes', ['list'])])];
    const out = narrowSearchOutputs(input, role({ notes: ['list'] }), ['notes'], codex);
    expect(out.input).toBe(input);
    expect(out.removed).toEqual([]);
    expect(narrowSearchOutputs('text', undefined, [], codex)).toEqual({
      input: 'text',
      removed: [],
    });
    expect(searchedTools([{ type: 'tool_search_output', tools: 'x' }])).toEqual([]);
  });
});
