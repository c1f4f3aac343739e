/**
 * Codex's deferred MCP tools (catalog models that defer them behind a client-side `tool_search`,
 * here `gpt-5.5` against the scripted provider) with real Codex in a real `exec` session: no MCP
 * tool is offered up front, and a search's results come back in a `tool_search_output` item. The
 * wire narrows those results to each role's grant; the native `scout`'s call of a tool granted
 * only to the lead, or of a server its search never showed, is turned away on the wire (nothing
 * runs, nobody is asked), while the lead's
 * call of a deferred tool it never searched for runs and is not recorded as refused.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { functionCall } from '../../support/scripted-model-fixture.js';
import { sessionCalls } from '../../support/session-calls.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  echoServer,
  onlySession,
  profileToml,
  runInWorld,
  useCatalogModel,
  type CliRun,
} from '../../support/world.js';

const isScout = (r: ModelRequest): boolean =>
  r.developerTexts.some((t) => t.includes('ROLE-SCOUT'));

interface Found {
  readonly namespace: string;
  readonly tools: string[];
}

/** What the `tool_search_output` items of a request hold, as the provider got them. */
function searchResults(request: ModelRequest): Found[] {
  const input = request.body.input as { type?: string; tools?: unknown[] }[];
  return input
    .filter((i) => i.type === 'tool_search_output')
    .flatMap((i) => (i.tools ?? []) as { name: string; tools?: { name: string }[] }[])
    .map((ns) => ({ namespace: ns.name, tools: (ns.tools ?? []).map((t) => t.name).sort() }));
}

// a search that finds the tools of `notes`, not `other`'s
const search: ScriptedItem = {
  type: 'tool_search_call',
  arguments: { query: 'notes add list', limit: 2 },
};

function script(request: ModelRequest): ScriptedItem[] {
  const step = request.toolOutputs.length;
  const searched = searchResults(request).length > 0;
  if (isScout(request)) {
    if (!searched) return [search];
    if (step === 0) return [functionCall('mcp__notes', 'add', { text: 'scout-adds' })];
    // a tool of the process its search never showed
    if (step === 1) return [functionCall('mcp__other', 'ping', { text: 'scout-pings' })];
    // the same by its flat name, of a server whose ID holds `__`
    if (step === 2) {
      return [{ type: 'function_call', name: 'mcp__my__srv__ping', arguments: { text: 'x' } }];
    }
    if (step === 3) return [functionCall('mcp__notes', 'list', { text: 'scout-lists' })];
    return [{ type: 'message', text: 'SCOUT-DONE' }];
  }
  if (!searched) return [search];
  // the lead calls a deferred tool of another server without searching for it
  if (step === 0) return [functionCall('mcp__other', 'ping', { text: 'lead-pings' })];
  if (step === 1) {
    return [functionCall('multi_agent_v1', 'spawn_agent', { agent_type: 'scout', message: 'go' })];
  }
  if (step === 2) {
    const id = (JSON.parse(request.toolOutputs[1]?.output ?? '{}') as { agent_id?: string })
      .agent_id;
    return [
      functionCall('multi_agent_v1', 'wait_agent', { targets: [id ?? ''], timeout_ms: 60_000 }),
    ];
  }
  return [{ type: 'message', text: 'LEAD-DONE' }];
}

const scripted = useScriptedSession(
  {
    registry: (root) =>
      echoServer('notes', {
        tools: 'list,add',
        args: ['--call-log', join(root, 'notes-calls.jsonl')],
      }) +
      echoServer('other', {
        tools: 'ping',
        args: ['--call-log', join(root, 'other-calls.jsonl')],
      }) +
      echoServer('my__srv', { tools: 'ping' }),
    profile: profileToml('deferred', 'lead', {
      lead: { natives: ['scout'], grants: { notes: {}, other: {}, my__srv: {} } },
      scout: { grants: { notes: { tools: ['list'] } } },
    }),
  },
  script,
);

let result: CliRun;

beforeAll(async () => {
  await useCatalogModel(scripted.world, 'gpt-5.5');
  result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'GO']);
}, 240_000);

describe("Codex's deferred MCP tools through the wire", () => {
  it('offers no MCP tool up front, only tool_search', () => {
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
    const first = scripted.model.requests[0]!;
    const tools = (first.body.tools ?? []) as { type?: string; name?: string }[];
    expect(tools.some((t) => t.type === 'tool_search')).toBe(true);
    expect(tools.some((t) => t.name?.startsWith('mcp__') === true)).toBe(false);
  });

  it("names to each role only its servers in tool_search's description (0.149 lists them)", () => {
    const described = (r: ModelRequest): string =>
      ((r.body.tools ?? []) as { type?: string; description?: string }[]).find(
        (t) => t.type === 'tool_search',
      )?.description ?? '';
    const lead = scripted.model.requests.filter((r) => !isScout(r));
    const scout = scripted.model.requests.filter(isScout);
    for (const request of scout) {
      expect(described(request)).not.toMatch(/^- (other|my__srv)\b/m);
    }
    if (TEST_CODEX_SERIES === '0.149') {
      expect(described(lead[0]!)).toMatch(/^- other$/m);
      expect(described(scout[0]!)).toMatch(/^- notes$/m);
    }
  });

  it("narrows each role's search results to its grant", () => {
    const lead = scripted.model.requests.filter((r) => !isScout(r) && searchResults(r).length > 0);
    const scout = scripted.model.requests.filter((r) => isScout(r) && searchResults(r).length > 0);
    expect(lead.length).toBeGreaterThan(0);
    expect(scout.length).toBeGreaterThan(0);
    expect(searchResults(lead[0]!)).toEqual([{ namespace: 'mcp__notes', tools: ['add', 'list'] }]);
    // the scout's search is its own thread's, and every request of it shows only its grant
    for (const request of scout) {
      expect(searchResults(request)).toEqual([{ namespace: 'mcp__notes', tools: ['list'] }]);
    }
  });

  it("turns the scout's call outside its grant away, and lets granted deferred calls run", async () => {
    const scout = scripted.model.requests.filter(isScout).at(-1)!;
    // Codex's own answer to the renamed call: it never reached Codex's MCP client
    expect(scout.toolOutputs[0]?.output).toBe(
      "unsupported call: mcp__notes.add is not granted to role 'scout' [tool-not-granted-to-role]",
    );
    expect(scout.toolOutputs[1]?.output).toBe(
      "unsupported call: mcp__other.ping is not granted to role 'scout' [tool-not-granted-to-role]",
    );
    expect(scout.toolOutputs[2]?.output).toBe(
      "unsupported call: mcp__my__srv__ping is not granted to role 'scout' [tool-not-granted-to-role]",
    );
    expect(scout.toolOutputs[3]?.output).toContain('scout-lists');
    const notes = await readFile(join(scripted.world.root, 'notes-calls.jsonl'), 'utf8');
    expect(notes).toContain('scout-lists');
    expect(notes).not.toContain('scout-adds');
    const other = await readFile(join(scripted.world.root, 'other-calls.jsonl'), 'utf8');
    expect(other).toContain('lead-pings');
    expect(other).not.toContain('scout-pings');
    const { record } = await onlySession(scripted.world);
    const calls = await sessionCalls(scripted.world, String(record.id));
    expect(
      calls
        .map((c) => `${String(c.role)} ${String(c.server)}.${String(c.tool)} ${String(c.reason)}`)
        .sort(),
    ).toEqual([
      'lead other.ping undefined',
      'scout my__srv.ping tool-not-granted-to-role',
      'scout notes.add tool-not-granted-to-role',
      'scout notes.list undefined',
      'scout other.ping tool-not-granted-to-role',
    ]);
  });
});
