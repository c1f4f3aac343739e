/**
 * The scripted model reads the request shape of every supported Codex version: base
 * instructions in `instructions` (0.149) or as the first developer message (0.171), and tool
 * outputs as a string (0.149) or as an array of `input_text` items (0.171).
 */
import { describe, expect, it } from 'vitest';

import { describeRequest } from '../../../src/runtime/codex/scripted-model.js';

const developer = (text: string) => ({
  type: 'message',
  role: 'developer',
  content: [{ type: 'input_text', text }],
});

describe('describeRequest per Codex request shape', () => {
  it('reads a 0.149 request: instructions field, string tool output', () => {
    const request = describeRequest(0, {
      instructions: 'BASE PROMPT',
      input: [
        developer('ROLE-LEAD'),
        { type: 'function_call_output', call_id: 'c1', output: 'ran one' },
      ],
    });
    expect(request.instructions).toBe('BASE PROMPT');
    expect(request.developerTexts).toEqual(['ROLE-LEAD']);
    expect(request.toolOutputs).toEqual([{ callId: 'c1', output: 'ran one' }]);
    expect(request.hasToolOutput).toBe(true);
  });

  it('reads a 0.171 request: base prompt as first developer message, input_text array output', () => {
    const request = describeRequest(1, {
      input: [
        developer('BASE PROMPT'),
        developer('ROLE-LEAD'),
        {
          type: 'function_call_output',
          call_id: 'c2',
          output: [
            { type: 'input_text', text: 'ran ' },
            { type: 'input_text', text: 'two' },
          ],
        },
      ],
    });
    expect(request.instructions).toBe('BASE PROMPT');
    expect(request.developerTexts).toEqual(['BASE PROMPT', 'ROLE-LEAD']);
    expect(request.toolOutputs).toEqual([{ callId: 'c2', output: 'ran two' }]);
  });

  it('gives empty instructions for a request with neither', () => {
    expect(describeRequest(2, { input: [] }).instructions).toBe('');
  });
});
