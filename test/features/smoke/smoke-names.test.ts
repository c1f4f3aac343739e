import { describe, expect, it } from 'vitest';

import type { ResolvedPlan } from '../../../src/config/profile/types.js';
import { describeScope } from '../../../src/features/smoke/smoke-report.js';
import { modelToolName, toOperatorNames } from '../../../src/features/smoke/smoke.js';

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

describe('describeScope', () => {
  const plan = (mesh: number | null): ResolvedPlan =>
    ({
      root: 'lead',
      roles: { lead: { mesh_tool_timeout_sec: mesh } },
      processes: [{ roles: ['lead'] }],
    }) as unknown as ResolvedPlan;
  it('says the root ran with mmo_mesh only when it has a spawn or control grant', () => {
    expect(describeScope(plan(60), new Map(), [])).toContain(
      "The session root 'lead' ran as a Codex app-server with its mmo_mesh.",
    );
    const without = describeScope(plan(null), new Map(), []);
    expect(without.join('\n')).not.toContain('with its mmo_mesh');
    expect(without).toContain(
      "The session root 'lead' ran as a Codex app-server, without mmo_mesh (it has no spawn or control grant).",
    );
  });
});
