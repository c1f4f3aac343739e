import { describe, expect, it } from 'vitest';

import {
  CODEX_REJECTED,
  explainDenials,
  type CallTarget,
  type DeniedCall,
} from '../../../src/runtime/model-wire/denial-texts.js';

const target: CallTarget = (namespace, name) => {
  const full = namespace !== undefined ? `${namespace}__${name}` : name;
  const match = /^mcp__([a-z]+)__(.+)$/.exec(full);
  return match === null ? undefined : { server: match[1] ?? '', tool: match[2] ?? '' };
};

const call = (id: string, args: Record<string, unknown>, name = 'write') => ({
  type: 'function_call',
  namespace: 'mcp__guarded',
  name,
  arguments: JSON.stringify(args),
  call_id: id,
});

/** Codex 0.171's output: content items. */
const output171 = (id: string, text = CODEX_REJECTED) => ({
  type: 'function_call_output',
  call_id: id,
  output: [
    { type: 'input_text', text: 'Wall time: 0.3 seconds\nOutput:' },
    { type: 'input_text', text },
  ],
});

/** Codex 0.149's output: one string holding the content as JSON. */
const output149 = (id: string) => ({
  type: 'function_call_output',
  call_id: id,
  output: `Wall time: 0.3 seconds\nOutput:\n[{"type":"text","text":"${CODEX_REJECTED}"}]`,
});

const denial = (text: string, params: unknown = { text: 'a' }): DeniedCall => ({
  server: 'guarded',
  tool: 'write',
  params,
  text,
});

describe('explaining denied calls to the model', () => {
  it("replaces Codex's rejection in content items (0.171)", () => {
    const input = [call('c1', { text: 'a' }), output171('c1')];
    const out = explainDenials(input, [denial('DENIED [approval-denied]')], target) as unknown[];
    expect(out[1]).toEqual({
      ...output171('c1'),
      output: [
        { type: 'input_text', text: 'Wall time: 0.3 seconds\nOutput:' },
        { type: 'input_text', text: 'DENIED [approval-denied]' },
      ],
    });
    expect(input[1]).toEqual(output171('c1'));
  });

  it('replaces it inside the JSON text of a string output (0.149), escaped', () => {
    const text = `a person denied it (reason: "no" \\ never) [approval-denied]`;
    const out = explainDenials(
      [call('c1', { text: 'a' }), output149('c1')],
      [denial(text)],
      target,
    ) as { output: string }[];
    const json = out[1]?.output.split('Output:\n')[1] ?? '';
    expect(JSON.parse(json)).toEqual([{ type: 'text', text }]);
  });

  it('matches arguments whatever their key order', () => {
    const input = [call('c1', { b: 1, a: { y: 2, x: 1 } }), output171('c1')];
    const out = explainDenials(input, [denial('D', { a: { x: 1, y: 2 }, b: 1 })], target);
    expect(JSON.stringify(out)).toContain('"text":"D"');
  });

  it('leaves calls alone that no denial names, and returns the same input', () => {
    const input = [
      call('c1', { text: 'other' }),
      output171('c1'),
      call('c2', { text: 'a' }, 'read'),
      output171('c2'),
      { ...call('c3', { text: 'a' }), namespace: 'mcp__other' },
      output171('c3'),
      // a server's own output that merely quotes Codex's words is not its rejection
      call('c4', { text: 'a' }),
      output171('c4', `the server said: ${CODEX_REJECTED}`),
      call('c5', { text: 'a' }),
      {
        type: 'function_call_output',
        call_id: 'c5',
        output: `Output:\n[{"type":"text","text":"see: ${CODEX_REJECTED}"}]`,
      },
    ];
    expect(explainDenials(input, [denial('D')], target)).toBe(input);
    expect(explainDenials(input, [], target)).toBe(input);
    expect(explainDenials('not a list', [denial('D')], target)).toBe('not a list');
  });

  it('explains each of two identical calls with its own denial, in order', () => {
    const input = [
      call('c1', { text: 'a' }),
      output171('c1'),
      call('c2', { text: 'a' }),
      output171('c2'),
    ];
    const out = JSON.stringify(explainDenials(input, [denial('FIRST'), denial('SECOND')], target));
    expect(out.indexOf('FIRST')).toBeGreaterThan(0);
    expect(out.indexOf('SECOND')).toBeGreaterThan(out.indexOf('FIRST'));
    expect(out).not.toContain(CODEX_REJECTED);
  });

  it('accepts the model-safe spelling of a tool name', () => {
    const input = [call('c1', { text: 'a' }, 'write_file'), output171('c1')];
    const out = explainDenials(input, [{ ...denial('D'), tool: 'write-file' }], target);
    expect(JSON.stringify(out)).toContain('"text":"D"');
  });
});
