/**
 * Calls to tools a Codex process does not have, read from a request's input: namespaced (0.171)
 * and flat names alike, each call once per thread, Codex's own functions too.
 */
import { describe, expect, it } from 'vitest';

import {
  callableNames,
  unofferedCalls as allUnoffered,
} from '../../../src/runtime/model-wire/unoffered-calls.js';

/** The calls found, by id, server and tool (the name as written is checked once below). */
const unofferedCalls = (...args: Parameters<typeof allUnoffered>) =>
  allUnoffered(...args).map(({ callId, server, tool }) => ({ callId, server, tool }));

const TOOLS = [
  { type: 'function', name: 'exec_command' },
  { type: 'namespace', name: 'mcp__notes', tools: [{ type: 'function', name: 'read' }] },
  { type: 'namespace', name: 'multi_agent_v1', tools: [{ type: 'function', name: 'spawn_agent' }] },
];

const fc = (call_id: string, name: string, namespace?: string) => ({
  type: 'function_call',
  call_id,
  name,
  arguments: '{}',
  ...(namespace !== undefined ? { namespace } : {}),
});

describe('unofferedCalls', () => {
  it('finds calls to names the request does not offer, once each', () => {
    const names = callableNames(TOOLS);
    const seen = new Set<string>();
    const input = [
      { type: 'message', role: 'user', content: 'go' },
      fc('c1', 'read', 'mcp__notes'),
      fc('c2', 'haunt', 'mcp__ghost'),
      fc('c3', 'mcp__notes__write'),
      fc('c4', 'mcp__notes__read'),
      fc('c5', 'exec_command'),
      fc('c6', 'update_plan'),
      fc('c7', 'spawn_agent', 'multi_agent_v1'),
    ];
    expect(unofferedCalls(input, names, seen)).toEqual([
      { callId: 'c2', server: 'ghost', tool: 'haunt' },
      { callId: 'c3', server: 'notes', tool: 'write' },
      { callId: 'c6', server: 'codex', tool: 'update_plan' },
    ]);
    // the next request of the thread repeats its history: nothing is reported twice
    expect(unofferedCalls([...input, fc('c8', 'x', 'mcp__a_b')], names, seen)).toEqual([
      { callId: 'c8', server: 'a_b', tool: 'x' },
    ]);
  });

  it('leaves out a call Codex ran all the same (a deferred tool no request listed)', () => {
    const out = (call_id: string, output: unknown) => ({
      type: 'function_call_output',
      call_id,
      output,
    });
    const input = [
      fc('d1', 'ping', 'mcp__other'),
      out('d1', [{ type: 'input_text', text: 'ping: {}' }]),
      fc('d2', 'spawn_agent', 'multi_agent_v1'),
      out('d2', '{"agent_id":"a"}'),
      fc('d3', 'haunt', 'mcp__ghost'),
      out('d3', 'unsupported call: mcp__ghost__haunt'),
    ];
    expect(unofferedCalls(input, callableNames([]), new Set())).toEqual([
      { callId: 'd3', server: 'ghost', tool: 'haunt' },
    ]);
  });

  it('finds a free-form call Codex did not have, and leaves out one it ran', () => {
    const custom = (call_id: string, name: string) => ({
      type: 'custom_tool_call',
      call_id,
      name,
      input: 'x',
    });
    const out = (call_id: string, output: string) => ({
      type: 'custom_tool_call_output',
      call_id,
      output,
    });
    const input = [
      custom('k1', 'nonexistent'),
      out('k1', 'unsupported custom tool call: nonexistent'),
      // code mode's `exec`, listed in a namespace: it ran
      custom('k2', 'exec'),
      out('k2', 'Script completed'),
    ];
    expect(unofferedCalls(input, callableNames([]), new Set())).toEqual([
      { callId: 'k1', server: 'codex', tool: 'nonexistent' },
    ]);
  });

  it('keeps the name as the model wrote it', () => {
    expect(allUnoffered([fc('f1', 'mcp__my__srv__ping')], new Set(), new Set())).toEqual([
      {
        callId: 'f1',
        namespace: undefined,
        name: 'mcp__my__srv__ping',
        server: 'my',
        tool: 'srv__ping',
      },
    ]);
  });

  it('ignores input that is not a list', () => {
    expect(unofferedCalls('text', new Set(), new Set())).toEqual([]);
  });
});
