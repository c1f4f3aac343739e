/**
 * Runs one scenario: a real `codex-mmo exec` of the team against the scripted model with its
 * operator answering approvals, the scenario's end path once the last role is at its last step
 * (or its final request is pending), then the evidence and the invariants checked against it.
 */
import { readFile, readdir } from 'node:fs/promises';

import { startScriptedModel, type ScriptedModel } from '../../src/runtime/codex/scripted-model.js';
import { removeTree } from '../../src/foundation/paths/remove-tree.js';
import { startCli, waitFor, type RunningCli } from '../support/world.js';
import { collectEvidence, type ScenarioEvidence } from './scenario-evidence.js';
import { checkScenario } from './scenario-invariants.js';
import type { Scenario } from './scenario-matrix.js';
import { cli, endSession, operate, sessionDir, type Operator } from './scenario-operator.js';
import { scenarioScript } from './scenario-script.js';
import { finalPendingCall } from './scenario-team.js';
import { scenarioWorld, type ScenarioWorld } from './scenario-world.js';

export interface ScenarioResult {
  readonly scenario: Scenario;
  /** Every invariant the scenario broke, one line each; empty when it passed. */
  readonly violations: readonly string[];
  readonly durationMs: number;
}

/**
 * Bounds for a loaded 2-core machine, where a 0.149 session of the whole team has taken over
 * five minutes: the wait for the end point, and the whole session (then it is killed).
 */
const END_POINT_MS = 900_000;
const SESSION_MS = 1_200_000;

/**
 * Seconds before an unanswered approval is denied in the `prompt-timeout` mode: short when the
 * session ends by itself, long enough for an early end to come while the final request waits.
 */
export function approvalTimeoutSec(scenario: Scenario): number {
  if (scenario.approval !== 'prompt-timeout') return 300;
  return scenario.end === 'natural' ? 2 : 30;
}

async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => {
      r('timeout');
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
  });
}

/**
 * `pid command line` of the processes holding the canary now (only its server's may): the
 * command line is read with the environment, so a process that is gone by then is not counted.
 */
async function canaryHolders(canary: string): Promise<string[]> {
  const held: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const [command, environ] = await Promise.all(
      ['cmdline', 'environ'].map((f) => readFile(`/proc/${entry}/${f}`, 'utf8').catch(() => '')),
    );
    if (command === '' || command === undefined) continue;
    if (command.includes(canary) || environ?.includes(canary) === true) {
      held.push(`${entry} ${command.replaceAll('\0', ' ')}`);
    }
  }
  return held;
}

/** Waits for the last role's last step (or the final request pending), then ends the session. */
async function endWhenDue(
  sw: ScenarioWorld,
  scenario: Scenario,
  run: { exec: RunningCli; dir: string; op: Operator; lastStep: Promise<void> },
): Promise<{ problems: string[]; holders: string[] }> {
  if (scenario.end === 'natural') {
    // the session still runs when the last role ends its turn
    const holders = await run.lastStep.then(() => canaryHolders(sw.canary));
    return { problems: [], holders };
  }
  const final = finalPendingCall(scenario) !== undefined;
  const due = final ? waitFor(() => run.op.finalPending, END_POINT_MS) : run.lastStep;
  const problems: string[] = [];
  const gone = run.exec.done.then(() => 'gone' as const);
  const reached = await Promise.race([withinMs(due, END_POINT_MS), gone]);
  if (reached === 'gone')
    return { problems: ['the session ended before its end point'], holders: [] };
  if (reached === 'timeout') problems.push('the last step was not reached');
  const holders = await canaryHolders(sw.canary);
  const ended = await endSession(sw, scenario, run.exec, run.dir);
  run.op.outputs.push(...ended.outputs);
  return { problems: [...problems, ...ended.problems], holders };
}

export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const started = Date.now();
  const script = scenarioScript(scenario);
  const op: Operator = { finalPending: false, stopped: false, outputs: [] };
  let model: ScriptedModel | undefined;
  let sw: ScenarioWorld | undefined;
  const running: { exec?: RunningCli; finished?: boolean } = {};
  try {
    model = await startScriptedModel(script.handler);
    const world = await scenarioWorld(scenario, model.baseUrl);
    sw = world;
    const timeout = approvalTimeoutSec(scenario);
    const args = ['exec', world.world.packDir, 'lead the work', '--approval-timeout'];
    const exec = startCli(
      [...args, String(timeout), ...world.dirArgs],
      world.world.env,
      world.world.workDir,
      SESSION_MS,
    );
    running.exec = exec;
    const done = exec.done.then((r) => {
      running.finished = true;
      return r;
    });
    const dir = await sessionDir(world);
    const operating = operate(world, scenario, dir, op);
    const ending = endWhenDue(world, scenario, { exec, dir, op, lastStep: script.lastStep });
    const result = await done;
    if (process.env.MMO_MATRIX_DEBUG !== undefined) {
      process.stderr.write(
        `${result.stderr}\n(exec ended after ${String(Date.now() - started)} ms)\n`,
      );
    }
    // a natural end that never reached the last role has nothing more to wait for
    const ended = await withinMs(ending, scenario.end === 'natural' ? 1_000 : 30_000);
    op.stopped = true;
    await operating;
    script.release();
    const evidence: ScenarioEvidence = await collectEvidence({
      scenario,
      sw: world,
      dir,
      exec: result,
      outputs: op.outputs,
      requests: model.requests,
      modelErrors: model.errors,
      canaryHolders: ended === 'timeout' ? [] : ended.holders,
      cli: (a) => cli(world, a),
    });
    const problems =
      ended === 'timeout' ? ['the session ended before its end point'] : ended.problems;
    return {
      scenario,
      violations: [...problems, ...checkScenario(evidence)],
      durationMs: Date.now() - started,
    };
  } catch (error) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return { scenario, violations: [`runner: ${text}`], durationMs: Date.now() - started };
  } finally {
    op.stopped = true;
    // a scenario the runner could not finish: its supervisor goes, the watchdog ends the rest
    if (running.exec !== undefined && running.finished !== true) {
      running.exec.kill('SIGKILL');
      await running.exec.done;
    }
    script.release();
    await model?.close();
    if (sw !== undefined) await removeTree(sw.world.root);
  }
}
