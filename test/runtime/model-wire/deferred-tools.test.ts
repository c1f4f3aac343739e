/**
 * Code mode's deferred MCP namespaces narrowed to a role (pure): the `Deferred tool namespaces:`
 * list of a developer text keeps the servers the role was granted (and `mmo_mesh` for a role with
 * spawn or control), read back the way each Codex version names them; nothing else of the input
 * changes, and an input with nothing to remove is returned as it was.
 */
import { describe, expect, it } from 'vitest';

import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';
import type { WireRole } from '../../../src/config/compile/role-grants.js';
import { narrowDeferredTools } from '../../../src/runtime/model-wire/deferred-tools.js';

const role = (tools: Record<string, string[]>, mesh = false): WireRole => ({
  role: 'scout',
  instructions: 'ROLE-SCOUT',
  tools,
  mesh,
  spawn: [],
  control: [],
  native: [],
});

const TOOLS_TEXT =
  '<tools>\nDeferred tool namespaces:\n- mcp__notes\n- mcp__web_search\n- mcp__mmo_mesh\n</tools>';

function input(text: string): unknown[] {
  return [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: '- mcp__notes' }] },
  ];
}

const textOf = (out: unknown): string =>
  (out as { content: { text: string }[] }[])[1]?.content[0]?.text ?? '';

describe('deferred MCP namespaces in code mode', () => {
  for (const codex of CODEX_VERSIONS) {
    it(`keeps only the granted servers (${codex.series})`, () => {
      const servers = ['notes', 'web-search', 'mmo_mesh'];
      const narrowed = narrowDeferredTools(
        input(TOOLS_TEXT),
        role({ notes: ['list'] }),
        servers,
        codex,
      );
      expect(textOf(narrowed.input)).toBe(
        '<tools>\nDeferred tool namespaces:\n- mcp__notes\n</tools>',
      );
      expect(narrowed.removed).toEqual(['web-search', 'mmo_mesh']);
      // a user's text is never touched
      expect((narrowed.input as unknown[])[2]).toEqual(input(TOOLS_TEXT)[2]);

      const mesh = narrowDeferredTools(input(TOOLS_TEXT), role({}, true), servers, codex);
      expect(textOf(mesh.input)).toBe(
        '<tools>\nDeferred tool namespaces:\n- mcp__mmo_mesh\n</tools>',
      );

      const none = narrowDeferredTools(input(TOOLS_TEXT), undefined, servers, codex);
      expect(textOf(none.input)).toBe('<tools>\nDeferred tool namespaces:\n</tools>');
    });
  }

  it('returns the input as it was when nothing is removed', () => {
    const given = input(TOOLS_TEXT);
    const all = role({ notes: [], 'web-search': [] }, true);
    const codex = CODEX_VERSIONS[0];
    if (codex === undefined) throw new Error('no Codex version');
    expect(narrowDeferredTools(given, all, ['notes', 'web-search', 'mmo_mesh'], codex)).toEqual({
      input: given,
      removed: [],
    });
    expect(narrowDeferredTools('not a list', undefined, [], codex)).toEqual({
      input: 'not a list',
      removed: [],
    });
  });
});
