/**
 * The scenario matrix generator (pure): 200 distinct scenarios, a Latin square that covers every
 * role kind × grant shape in five teams with every shape buildable and true to its meaning
 * against the process root's grant, filters, and a seeded sample that is the same for the same
 * seed and covers every team when it is five scenarios or more.
 */
import { describe, expect, it } from 'vitest';

import {
  APPROVAL_MODES,
  CODEX_VERSIONS,
  END_PATHS,
  ROLE_KINDS,
  ROLE_OF_KIND,
  SHAPES,
  TEAM_SQUARE,
  sampleScenarios,
  scenarioMatrix,
  teamShapes,
} from './scenario-matrix.js';
import { expectedCalls } from './scenario-expected.js';
import { REFERENCE_GRANT, teamRoles, type Grant } from './scenario-team.js';

const pairs = (grant: Grant): string[] =>
  Object.entries(grant).flatMap(([s, tools]) => tools.map((t) => `${s}.${t}`));

describe('the scenario matrix', () => {
  it('has every team × approval mode × end path × Codex version once', () => {
    const all = scenarioMatrix();
    expect(all).toHaveLength(
      TEAM_SQUARE.length * APPROVAL_MODES.length * END_PATHS.length * CODEX_VERSIONS.length,
    );
    expect(all).toHaveLength(200);
    expect(new Set(all.map((s) => s.id)).size).toBe(200);
  });

  it('is a Latin square over role kind × shape: five teams cover every pair', () => {
    for (const row of TEAM_SQUARE) expect([...row].sort()).toEqual([...SHAPES].sort());
    for (const [k] of ROLE_KINDS.entries()) {
      expect(TEAM_SQUARE.map((row) => row[k]).sort()).toEqual([...SHAPES].sort());
    }
    const covered = new Set(
      [...TEAM_SQUARE.keys()].flatMap((t) =>
        Object.entries(teamShapes(t)).map(([kind, shape]) => `${kind}:${shape}`),
      ),
    );
    expect(covered.size).toBe(ROLE_KINDS.length * SHAPES.length);
  });

  it("gives every role a grant true to its shape against its process root's", () => {
    for (const team of TEAM_SQUARE.keys()) {
      const roles = teamRoles({ shapes: teamShapes(team) });
      for (const kind of ROLE_KINDS) {
        const role = roles[ROLE_OF_KIND[kind]]!;
        const root = kind === 'root' || kind === 'participant' ? undefined : role.process;
        const base = pairs(
          root === undefined
            ? REFERENCE_GRANT
            : root === 'root'
              ? roles.lead!.grant
              : roles.worker!.grant,
        );
        const mine = pairs(role.grant);
        const context = `team ${String(team)} ${kind}`;
        switch (teamShapes(team)[kind]) {
          case 'same':
            expect(mine, context).toEqual(base);
            break;
          case 'narrower':
            expect(mine.length, context).toBeGreaterThan(0);
            expect(mine.length, context).toBeLessThan(base.length);
            expect(base, context).toEqual(expect.arrayContaining(mine));
            break;
          case 'wider':
            expect(mine.length, context).toBeGreaterThan(base.length);
            expect(mine, context).toEqual(expect.arrayContaining(base));
            break;
          case 'disjoint': {
            const servers = (g: string[]) => new Set(g.map((p) => p.split('.')[0]));
            expect(mine.length, context).toBeGreaterThan(0);
            expect(
              [...servers(mine)].filter((s) => servers(base).has(s)),
              context,
            ).toEqual([]);
            break;
          }
          case 'none':
            expect(mine, context).toEqual([]);
        }
      }
    }
  });

  it('filters by team, approval mode, end path and version', () => {
    const some = scenarioMatrix({ teams: [1], ends: ['sigint'], versions: ['0.149'] });
    expect(some.map((s) => s.id)).toEqual(APPROVAL_MODES.map((a) => `t1-${a}-sigint-0.149`));
  });

  it('expects a refusal for every call outside a grant and an approval for granted writes', () => {
    const [scenario] = scenarioMatrix({ teams: [2], approvals: ['prompt-no'], ends: ['natural'] });
    const expected = expectedCalls(scenario!);
    // lead is granted notes read, write and echo; its native scribe also list
    expect(expected.ok).toContain('lead notes.read');
    expect(expected.refused).toContain('lead notes.write approval-denied');
    expect(expected.refused).toContain('lead notes.list tool-not-granted-to-role');
    expect(expected.refused).toContain('lead vault.peek tool-not-offered');
    expect(expected.refused).toContain('helper ghost.haunt tool-not-offered');
    expect(expected.asked).toEqual([
      'aide notes.write',
      'helper vault.poke',
      'lead notes.write',
      'scribe notes.write',
    ]);
  });
});

describe('a seeded sample', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(sampleScenarios(42, 7)).toEqual(sampleScenarios(42, 7));
    const ids = (seed: number) => sampleScenarios(seed, 7).map((s) => s.id);
    expect(new Set([1, 2, 3, 4, 5].map((seed) => ids(seed).join())).size).toBeGreaterThan(1);
  });

  it('covers every team (every role kind × shape) from five scenarios, without repeats', () => {
    for (const seed of [0, 1, 99, 123_456]) {
      const sample = sampleScenarios(seed, 5);
      expect(new Set(sample.map((s) => s.team)).size).toBe(5);
      const more = sampleScenarios(seed, 40);
      expect(new Set(more.map((s) => s.id)).size).toBe(40);
    }
  });

  it('keeps to the filter and never exceeds it', () => {
    const filter = { versions: ['0.149'] as const, ends: ['natural' as const] };
    const sample = sampleScenarios(7, 50, filter);
    expect(sample).toHaveLength(20);
    expect(sample.every((s) => s.version === '0.149' && s.end === 'natural')).toBe(true);
  });
});
