/**
 * The team budget's decisions (pure): a spawn against participants, Codex processes and memory,
 * a server start against server processes and memory, each refusal naming the ceiling and its
 * option; options parsed as whole numbers; `session show`'s lines of use against each ceiling;
 * a pack's `[budget]` narrowing the operator's ceilings, never raising one, and named in refusals.
 */
import { describe, expect, it } from 'vitest';

import {
  budgetLines,
  resolveTeamBudget,
  serverRefusal,
  spawnRefusal,
  withinOperator,
  type TeamUse,
} from '../../../src/runtime/session/team-budget.js';

const use = (part: Partial<TeamUse> = {}): TeamUse => ({
  participants: 1,
  codex_processes: 2,
  server_processes: 1,
  memory_mb: 300,
  ...part,
});

describe('the team budget', () => {
  it('admits a spawn within every ceiling and refuses one at any of them', () => {
    const budget = { participants: 2, codex_processes: 3, memory_mb: 1000 };
    expect(spawnRefusal(budget, use(), 150)).toBeUndefined();
    const full = spawnRefusal(budget, use({ participants: 2 }), 150);
    expect(full?.ceiling).toBe('participants');
    expect(full?.message).toContain('(--max-participants 2); stop one with stop_participant');
    expect(spawnRefusal(budget, use({ codex_processes: 3 }), 150)?.ceiling).toBe('codex_processes');
    // memory: what runs plus what one more Codex process is expected to take
    const memory = spawnRefusal(budget, use({ memory_mb: 900 }), 150);
    expect(memory?.ceiling).toBe('memory_mb');
    expect(memory?.message).toContain('take 900 MB and one more would take about 150 MB');
    expect(spawnRefusal(budget, use({ memory_mb: 850 }), 150)).toBeUndefined();
    // memory not measured: no memory decision
    const noMemory: TeamUse = { participants: 1, codex_processes: 2, server_processes: 1 };
    expect(spawnRefusal(budget, noMemory, 150)).toBeUndefined();
  });

  it('admits a server start within its ceilings and refuses one beyond', () => {
    expect(
      serverRefusal({ participants: 8 }, use({ server_processes: 99 }), 'web', 0),
    ).toBeUndefined();
    const refusal = serverRefusal({ participants: 8, server_processes: 1 }, use(), 'web', 0);
    expect(refusal?.message).toBe(
      "server 'web' was not started: the session already runs 1 server processes, its limit (--max-server-processes 1) [budget-exceeded]",
    );
    expect(serverRefusal({ participants: 8, memory_mb: 320 }, use(), 'web', 40)?.ceiling).toBe(
      'memory_mb',
    );
  });

  it('parses its options as whole numbers and says what a bad one needs', () => {
    expect(resolveTeamBudget(8, { memory_mb: '2048', server_processes: undefined })).toEqual({
      ok: true,
      value: { participants: 8, memory_mb: 2048 },
    });
    for (const bad of ['-1', '1.5', 'lots', '']) {
      const resolved = resolveTeamBudget(8, { codex_processes: bad });
      expect(resolved.ok).toBe(false);
      if (!resolved.ok) expect(resolved.message).toContain("option '--max-codex-processes'");
    }
  });

  it('shows use against each ceiling', () => {
    expect(budgetLines({ participants: 8, memory_mb: 4096 }, use())).toEqual([
      ['participants', '1 of 8'],
      ['Codex processes', '2 (no limit)'],
      ['server processes', '1 (no limit)'],
      ['memory', '300 MB of 4096 MB'],
    ]);
  });

  it("narrows the operator's ceilings with the pack's, never raising one", () => {
    const operator = { participants: 8, codex_processes: 4 };
    expect(withinOperator(operator, undefined)).toEqual({ budget: operator, above: [] });
    const { budget, above } = withinOperator(operator, {
      participants: 2,
      codex_processes: 9,
      server_processes: 3,
    });
    expect(budget).toEqual({
      participants: 2,
      codex_processes: 4,
      server_processes: 3,
      from_pack: ['participants', 'server_processes'],
    });
    expect(above).toEqual([
      { ceiling: 'codex_processes', pack: 9, operator: 4, option: '--max-codex-processes' },
    ]);
    // a refusal names the pack's ceiling, or the operator's option
    expect(spawnRefusal(budget, use({ participants: 2 }), 0)?.message).toContain(
      "its limit (the pack's [budget] participants = 2)",
    );
    expect(
      spawnRefusal(budget, use({ participants: 1, codex_processes: 4 }), 0)?.message,
    ).toContain('its limit (--max-codex-processes 4)');
    expect(withinOperator(operator, { participants: 8 })).toEqual({ budget: operator, above: [] });
  });
});
