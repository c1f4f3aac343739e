/**
 * A seeded sample of the session scenario matrix, run with real Codex (once per Codex version):
 * whole teams — root, native, nested native, participant and the participant's native role —
 * under a drawn approval mode and end path, each scenario checked against every invariant. The
 * seed is printed and named in the suite; `MMO_MATRIX_SEED=N` replays it, `MMO_MATRIX_SAMPLE=N`
 * sets how many scenarios run (default 2, which fits the time budget of a CI run). `npm run
 * matrix` runs the whole matrix.
 */
import { beforeAll, describe, expect, it } from 'vitest';

import { TEST_CODEX_SERIES } from '../support/codex-bin.js';
import { requireBuild } from '../support/world.js';
import { CODEX_VERSIONS, sampleScenarios, type CodexVersion } from './scenario-matrix.js';
import { runScenario } from './scenario-runner.js';

const seed = Number(process.env.MMO_MATRIX_SEED ?? Math.floor(Math.random() * 2 ** 31));
const count = Number(process.env.MMO_MATRIX_SAMPLE ?? '2');
const version = CODEX_VERSIONS.find((v) => v === TEST_CODEX_SERIES) as CodexVersion;
const sample = sampleScenarios(seed, count, { versions: [version] });

// printed whatever the outcome, so a failure replays
console.log(
  `scenario matrix sample: seed ${String(seed)} (replay: MMO_MATRIX_SEED=${String(seed)}): ${sample.map((s) => s.id).join(', ')}`,
);

describe(`scenario matrix sample, seed ${String(seed)} (replay with MMO_MATRIX_SEED=${String(seed)})`, () => {
  beforeAll(() => {
    requireBuild();
  });

  it('draws scenarios of this Codex version', () => {
    expect(sample.length).toBe(Math.min(count, 100));
    expect(sample.every((s) => s.version === version)).toBe(true);
  });

  for (const scenario of sample) {
    it(`keeps every invariant: ${scenario.id}`, async () => {
      const result = await runScenario(scenario);
      expect(result.violations).toEqual([]);
    }, 1_300_000);
  }
});
