import { describe, expect, it } from 'vitest';

import type { ResolvedPlan } from '../../src/profile/types.js';
import { modelToolName, toOperatorNames } from '../../src/session/smoke.js';

describe('toOperatorNames', () => {
  const plan = {
    servers: {
      everything: {
        id: 'everything',
        transport: 'stdio',
        command: 'x',
        enabled_tools: ['get-sum', 'echo', 'a.b'],
        default_tools_approval_mode: 'prompt',
      },
    },
  } as unknown as ResolvedPlan;

  it('maps the model-safe names Codex offers back to operator tool names', () => {
    expect(modelToolName('get-sum')).toBe('get_sum');
    expect(toOperatorNames({ everything: ['get_sum', 'echo', 'a_b'] }, plan)).toEqual({
      everything: ['a.b', 'echo', 'get-sum'],
    });
  });
  it('keeps names that stand for no operator tool, so they show up as extra', () => {
    expect(toOperatorNames({ everything: ['get_env'], other: ['x'] }, plan)).toEqual({
      everything: ['get_env'],
      other: ['x'],
    });
  });
});
