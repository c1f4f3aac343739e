/**
 * Script steps name tools as `SERVER.TOOL` with the registry ID and the server's own tool name;
 * the scripted model sends them under the names Codex offers (hyphens as `_`, hashed namespaces
 * when two servers map to one name), and `when_offered` matches a hyphenated ID. A request that
 * offers no tool (Codex's own, such as a task title) takes no step.
 */
import { describe, expect, it } from 'vitest';

import { offeredToolsOf, type ModelRequest } from '../../../src/runtime/codex/scripted-model.js';
import {
  itemsOfStep,
  scriptHandler,
  sectionFor,
  type ModelScript,
} from '../../../src/features/onboard/model-script.js';

function request(namespaces: Record<string, string[]>): ModelRequest {
  const body = {
    tools: Object.entries(namespaces).map(([name, tools]) => ({
      type: 'namespace',
      name,
      tools: tools.map((t) => ({ type: 'function', name: t })),
    })),
    input: [],
  };
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
}

const call = (tool: string, r: ModelRequest): unknown => itemsOfStep({ tool, arguments: {} }, r)[0];

describe('tool steps', () => {
  it('map a hyphenated server and tool to the names Codex offers', () => {
    const r = request({ mcp__other: ['x'], mcp__my_notes: ['take_note'] });
    expect(call('my-notes.take-note', r)).toMatchObject({
      type: 'function_call',
      namespace: 'mcp__my_notes',
      name: 'take_note',
    });
    // `mcp__my_notes__` is where Codex offers a server `my_notes__`, not `my-notes`
    const other = request({ mcp__my_notes__: ['take_note'] });
    expect(call('my-notes.take-note', other)).toMatchObject({ namespace: 'mcp__my_notes' });
    expect(call('my_notes__.take-note', other)).toMatchObject({ namespace: 'mcp__my_notes__' });
  });

  it('pick the hashed namespace of colliding servers that offers the tool', () => {
    const r = request({ mcp__a_b_0123456789ab: ['ping'], mcp__a_b_ba9876543210: ['pong'] });
    expect(call('a-b.pong', r)).toMatchObject({ namespace: 'mcp__a_b_ba9876543210', name: 'pong' });
    expect(call('a_b.ping', r)).toMatchObject({ namespace: 'mcp__a_b_0123456789ab', name: 'ping' });
    // both offer it: ambiguous, so the predictable name (Codex reports an unknown tool)
    const both = request({ mcp__a_b_0123456789ab: ['ping'], mcp__a_b_ba9876543210: ['ping'] });
    expect(call('a-b.ping', both)).toMatchObject({ namespace: 'mcp__a_b', name: 'ping' });
  });

  it('does not take a longer server name that shares the prefix', () => {
    const r = request({ mcp__my_notes_extra: ['take_note'] });
    expect(call('my-notes.take-note', r)).toMatchObject({ namespace: 'mcp__my_notes' });
  });
});

describe('when_offered', () => {
  const script: ModelScript = {
    sections: [
      { whenOffered: 'my-notes', steps: [{ reply: 'notes' }] },
      { steps: [{ reply: 'any' }] },
    ],
  };
  it('matches a hyphenated server ID by the name Codex offers it under', () => {
    expect(sectionFor(script, request({ mcp__my_notes: ['take_note'] }))?.steps).toEqual([
      { reply: 'notes' },
    ]);
    expect(sectionFor(script, request({ mcp__my_notes__: ['take_note'] }))?.steps).toEqual([
      { reply: 'any' },
    ]);
    expect(sectionFor(script, request({ mcp__my_notes_0123456789ab: ['a'] }))?.steps).toEqual([
      { reply: 'notes' },
    ]);
    expect(sectionFor(script, request({ mcp__my_notesx: ['a'] }))?.steps).toEqual([
      { reply: 'any' },
    ]);
  });
});

describe('a request offering no tool', () => {
  it("is Codex's own (a task title): answered with a reply, never a step's call", async () => {
    const play = scriptHandler({ sections: [{ steps: [{ tool: 'notes.take', arguments: {} }] }] });
    expect(await play(request({}))).toEqual([
      { type: 'message', text: '[scripted model] no tools offered' },
    ]);
    expect((await play(request({ mcp__notes: ['take'] })))[0]).toMatchObject({
      type: 'function_call',
    });
  });
});
