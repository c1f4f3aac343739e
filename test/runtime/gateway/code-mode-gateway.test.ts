/**
 * Codex's code mode (catalog models marked `code_mode_only`, here `gpt-5.6-sol` against the
 * scripted provider) with real Codex in a real `exec` session: requests carry no `tools`, only an
 * `additional_tools` item whose `exec` runs JavaScript that calls every tool of the process. The
 * wire names to each role only the servers it was granted (Codex 0.171 names them in a developer
 * text). The lead's JavaScript call of its granted tool reaches the server; its native `scout`'s JavaScript
 * call of a tool granted only to the lead is refused by the gateway by its thread, never reaches
 * the server, and is recorded as the scout's; the functions code mode offers directly (spawning,
 * waiting) are not recorded as refused.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
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
const js = (code: string): ScriptedItem => ({
  type: 'custom_tool_call',
  name: 'exec',
  input: code,
});
const callAdd = (text: string): ScriptedItem =>
  js(`const r = await tools.mcp__notes__add({ text: '${text}' }); text(JSON.stringify(r));`);
const collaboration = (name: string, args: Record<string, unknown>): ScriptedItem => ({
  type: 'function_call',
  namespace: 'collaboration',
  name,
  arguments: args,
});

/** The outputs of tool calls in a request (code mode's and functions'). */
function outputs(request: ModelRequest): string[] {
  return (request.body.input as { type?: string; output?: unknown }[])
    .filter((i) => i.type === 'custom_tool_call_output' || i.type === 'function_call_output')
    .map((i) => JSON.stringify(i.output));
}

function script(request: ModelRequest): ScriptedItem[] {
  const done = outputs(request);
  if (isScout(request)) {
    // the scout sees the lead's history too: it acts once, on its own call's absence
    if (!done.some((o) => o.includes('scout-adds') || o.includes('refused'))) {
      return [callAdd('scout-adds')];
    }
    return [{ type: 'message', text: 'SCOUT-DONE' }];
  }
  if (done.length === 0) return [callAdd('lead-adds')];
  if (done.length === 1) {
    return [
      collaboration('spawn_agent', { agent_type: 'scout', message: 'go', task_name: 'probe' }),
    ];
  }
  if (done.length === 2) return [collaboration('wait_agent', { timeout_ms: 60_000 })];
  return [{ type: 'message', text: 'LEAD-DONE' }];
}

const scripted = useScriptedSession(
  {
    registry: (root) =>
      echoServer('notes', {
        tools: 'list,add',
        args: ['--call-log', join(root, 'notes-calls.jsonl')],
      }) + echoServer('other', { tools: 'ping' }),
    profile: profileToml('code-mode', 'lead', {
      lead: { natives: ['scout'], grants: { notes: {}, other: {} } },
      scout: { grants: { notes: { tools: ['list'] } } },
    }),
  },
  script,
);

let result: CliRun;

beforeAll(async () => {
  await useCatalogModel(scripted.world, 'gpt-5.6-sol');
  result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'GO']);
}, 240_000);

/** The developer texts of a request, as the provider got them. */
const developerText = (request: ModelRequest): string => request.developerTexts.join('\n');

describe("Codex's code mode through the gateway", () => {
  it('names to each role only the servers it was granted', () => {
    const lead = scripted.model.requests.filter((r) => !isScout(r));
    const scout = scripted.model.requests.filter(isScout);
    expect(scout.length).toBeGreaterThan(0);
    for (const request of scout) expect(developerText(request)).not.toContain('mcp__other');
    // Codex 0.171 names the deferred servers in a developer text; 0.149 names none
    if (lead.some((r) => developerText(r).includes('Deferred tool namespaces:'))) {
      expect(developerText(lead[0]!)).toContain('- mcp__other');
      expect(scout.some((r) => developerText(r).includes('- mcp__notes'))).toBe(true);
    }
  });

  it('sends no tools array: the model reaches tools through exec', () => {
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
    const first = scripted.model.requests[0];
    expect(first?.body.tools ?? []).toEqual([]);
    expect(JSON.stringify(first?.body.input)).toContain('"additional_tools"');
  });

  it("refuses the native role's call outside its grant by its thread, and lets the lead's through", async () => {
    const scout = scripted.model.requests.filter(isScout).at(-1);
    expect(outputs(scout!).join('\n')).toContain(
      "codex-mmo refused this call [tool-not-granted-to-role]: tool 'add' of server 'notes' is not granted to role 'scout'",
    );
    const logged = await readFile(join(scripted.world.root, 'notes-calls.jsonl'), 'utf8');
    expect(logged).toContain('lead-adds');
    expect(logged).not.toContain('scout-adds');
    const { record } = await onlySession(scripted.world);
    const calls = await sessionCalls(scripted.world, String(record.id));
    expect(
      calls.map(
        (c) => `${String(c.role)} ${String(c.server)}.${String(c.tool)} ${String(c.reason)}`,
      ),
    ).toEqual(['lead notes.add undefined', 'scout notes.add tool-not-granted-to-role']);
  });
});
