/**
 * `npm run matrix [-- --seed N --sample N --team 0,1 --approval auto,prompt-no --end sigint
 * --version 0.149 --id t2-auto-sigint-0.149,… --jobs 2 --stop-after SEC]`: runs the session
 * scenario matrix (every scenario the filters and ids admit, or a seeded sample of them), `--jobs`
 * sessions at once (default 1), starting
 * none after `--stop-after` seconds; prints a line per scenario as it ends, then the table
 * scenario → result and duration, and exits 1 when any scenario broke an invariant.
 */
import { parseArgs } from 'node:util';

import {
  sampleScenarios,
  scenarioMatrix,
  type ApprovalMode,
  type CodexVersion,
  type EndPath,
  type ScenarioFilter,
} from '../test/matrix/scenario-matrix.js';
import { runScenario, type ScenarioResult } from '../test/matrix/scenario-runner.js';
import { requireBuild } from '../test/support/world.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    sample: { type: 'string' },
    team: { type: 'string' },
    approval: { type: 'string' },
    end: { type: 'string' },
    version: { type: 'string' },
    id: { type: 'string' },
    jobs: { type: 'string' },
    'stop-after': { type: 'string' },
  },
});

const list = (text: string | undefined): string[] | undefined => text?.split(',');
const filter: ScenarioFilter = {
  ...(values.team !== undefined ? { teams: list(values.team)?.map(Number) ?? [] } : {}),
  ...(values.approval !== undefined ? { approvals: list(values.approval) as ApprovalMode[] } : {}),
  ...(values.end !== undefined ? { ends: list(values.end) as EndPath[] } : {}),
  ...(values.version !== undefined ? { versions: list(values.version) as CodexVersion[] } : {}),
};
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
// the whole matrix runs in a seeded covering order (every five cover every team), so a run cut
// short by --stop-after still spreads over teams, approval modes, end paths and versions
const all = scenarioMatrix(filter);
const ids = list(values.id);
const unknown = (ids ?? []).filter((id) => !all.some((s) => s.id === id));
if (unknown.length > 0) {
  process.stderr.write(
    `scenario matrix: no scenario ${unknown.join(', ')} under these filters; ids look like ${all[0]?.id ?? 't0-auto-natural-0.171'}\n`,
  );
  process.exit(2);
}
const scenarios = sampleScenarios(seed, Number(values.sample ?? all.length), filter).filter(
  (s) => ids === undefined || ids.includes(s.id),
);
const stopAfterMs =
  values['stop-after'] !== undefined ? Number(values['stop-after']) * 1000 : Infinity;

requireBuild();
process.stdout.write(
  `scenario matrix: ${String(scenarios.length)} scenarios, seed ${String(seed)} (replay: --seed ${String(seed)})\n`,
);
const started = Date.now();
const results: ScenarioResult[] = [];
const queue = [...scenarios];
/** Runs scenarios from the queue one after another, printing each as it ends. */
async function worker(): Promise<void> {
  for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
    if (Date.now() - started > stopAfterMs) {
      queue.length = 0;
      return;
    }
    const result = await runScenario(scenario);
    results.push(result);
    const verdict = result.violations.length === 0 ? 'pass' : 'FAIL';
    process.stdout.write(`${verdict} ${scenario.id} ${(result.durationMs / 1000).toFixed(1)} s\n`);
    for (const v of result.violations) process.stdout.write(`  - ${v}\n`);
  }
}
const jobs = Math.max(1, Number(values.jobs ?? '1'));
await Promise.all(Array.from({ length: jobs }, () => worker()));
const order = all.map((s) => s.id);
results.sort((a, b) => order.indexOf(a.scenario.id) - order.indexOf(b.scenario.id));

const width = Math.max(8, ...results.map((r) => r.scenario.id.length));
process.stdout.write(`\n${'SCENARIO'.padEnd(width)}  RESULT  SECONDS\n`);
for (const r of results) {
  const verdict = r.violations.length === 0 ? 'pass' : 'FAIL';
  process.stdout.write(
    `${r.scenario.id.padEnd(width)}  ${verdict.padEnd(6)}  ${(r.durationMs / 1000).toFixed(1)}\n`,
  );
}
const failed = results.filter((r) => r.violations.length > 0).length;
const wall = (Date.now() - started) / 1000;
process.stdout.write(
  `\n${String(results.length - failed)} passed, ${String(failed)} failed, ${String(scenarios.length - results.length)} not run (--stop-after), ${wall.toFixed(0)} s with ${String(jobs)} at once\n`,
);
process.exitCode = failed > 0 ? 1 : 0;
