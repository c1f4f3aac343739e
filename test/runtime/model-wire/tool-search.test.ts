/**
 * Tool-search results narrowed to a role (pure): each `tool_search_output` item's tools keep only
 * what the role was granted (whole servers and single tools removed, read back the way each Codex
 * version names servers), no role keeps no MCP tool, other items are left alone, and an input with
 * nothing to remove is returned as it was.
 */
import { describe, expect, it } from 'vitest';

import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import type { WireRole } from '../../../src/config/compile/role-grants.js';
import { narrowSearchOutputs, searchedTools } from '../../../src/runtime/model-wire/tool-search.js';

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
