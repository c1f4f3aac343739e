import { describe, expect, it } from 'vitest';

import {
  CODEX_REJECTED,
  denialKey,
  explainDenials,
  type CallTarget,
  type PendingDenial,
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

const pending = (text: string, params: unknown = { text: 'a' }, tool = 'write') => ({
  key: denialKey('guarded', tool, params),
  text,
});

const explain = (input: unknown, texts: PendingDenial[], bound = new Map<string, string>()) =>
  explainDenials(input, { bound, pending: texts }, target);

describe('explaining denied calls to the model', () => {
  it("replaces Codex's rejection in content items (0.171), and ties the denial to the call", () => {
    const input = [call('c1', { text: 'a' }), output171('c1')];
    const out = explain(input, [pending('DENIED [approval-denied]')]);
    expect((out.input as unknown[])[1]).toEqual({
      ...output171('c1'),
      output: [
        { type: 'input_text', text: 'Wall time: 0.3 seconds\nOutput:' },
        { type: 'input_text', text: 'DENIED [approval-denied]' },
      ],
    });
    expect(input[1]).toEqual(output171('c1'));
    expect(out.bound).toEqual(new Map([['c1', 'DENIED [approval-denied]']]));
    expect(out.used).toEqual(new Set([0]));
    // later requests repeat the call: its tie explains it, with nothing pending
    const again = explain(input, [], out.bound as Map<string, string>);
    expect(JSON.stringify(again.input)).toContain('DENIED [approval-denied]');
  });

  it('replaces it inside the JSON text of a string output (0.149), escaped', () => {
    const text = `a person denied it (reason: "no" \\ never) [approval-denied]`;
    const out = explain([call('c1', { text: 'a' }), output149('c1')], [pending(text)]);
    const json = (out.input as { output: string }[])[1]?.output.split('Output:\n')[1] ?? '';
    expect(JSON.parse(json)).toEqual([{ type: 'text', text }]);
  });

  it('matches arguments whatever their key order, and the model-safe spelling of a tool', () => {
    const input = [call('c1', { b: 1, a: { y: 2, x: 1 } }), output171('c1')];
    expect(
      JSON.stringify(explain(input, [pending('D', { a: { x: 1, y: 2 }, b: 1 })]).input),
    ).toContain('"text":"D"');
    const safe = [call('c1', { text: 'a' }, 'write_file'), output171('c1')];
    expect(
      JSON.stringify(explain(safe, [pending('D', { text: 'a' }, 'write-file')]).input),
    ).toContain('"text":"D"');
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
    const out = explain(input, [pending('D')]);
    expect(out.input).toBe(input);
    expect(out.used.size).toBe(0);
    expect(explain(input, []).input).toBe(input);
    expect(explain('not a list', [pending('D')]).input).toBe('not a list');
  });

  it('gives two identical denied calls their own texts, newest to newest', () => {
    const input = [
      call('c1', { text: 'a' }),
      output171('c1'),
      call('c2', { text: 'a' }),
      output171('c2'),
    ];
    const out = explain(input, [pending('FIRST'), pending('SECOND')]);
    expect(out.bound).toEqual(
      new Map([
        ['c2', 'SECOND'],
        ['c1', 'FIRST'],
      ]),
    );
    expect(JSON.stringify(out.input)).not.toContain(CODEX_REJECTED);
  });

  it('ties a denial to the newest rejected call of its kind, not to an older one nobody denied', () => {
    // c1 was cancelled (Codex's words, no denial); c2, the same call, was denied
    const input = [
      call('c1', { text: 'a' }),
      output171('c1'),
      call('c2', { text: 'a' }),
      output171('c2'),
    ];
    const out = explain(input, [pending('DENIED')]);
    expect(out.bound).toEqual(new Map([['c2', 'DENIED']]));
    const outputs = (out.input as { output?: unknown }[]).map((i) =>
      JSON.stringify(i.output ?? ''),
    );
    expect(outputs[1]).toContain(CODEX_REJECTED);
    expect(outputs[3]).toContain('DENIED');
  });
});
