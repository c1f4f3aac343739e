/**
 * Runs one scenario as an operator would: a real `codex-mmo exec` of the team against the
 * scripted model, an operator that answers approval requests per the approval mode (listing them
 * through the library, answering with `codex-mmo session approve|deny`), the scenario's end path
 * (natural end, `session stop`, SIGINT, SIGTERM, `kill -9` of the supervisor) once the last role
 * is at its last step, and then the evidence the invariants are checked against.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { listSessionApprovals } from '../../src/approvals/session-approvals.js';
import { startScriptedModel, type ScriptedModel } from '../../src/codex/scripted-model.js';
import { removeTree } from '../../src/profile/pack-store.js';
import {
  processesMentioning,
  startCli,
  waitFor,
  type CliRun,
  type RunningCli,
} from '../session/world.js';
import { cmdline, collectEvidence, type ScenarioEvidence } from './scenario-evidence.js';
import { checkScenario } from './scenario-invariants.js';
import type { Scenario } from './scenario-matrix.js';
import { scenarioScript } from './scenario-script.js';
import { finalPendingCall } from './scenario-team.js';
import { scenarioWorld, type ScenarioWorld } from './scenario-world.js';

export interface ScenarioResult {
  readonly scenario: Scenario;
  /** Every invariant the scenario broke, one line each; empty when it passed. */
  readonly violations: readonly string[];
  readonly durationMs: number;
}

/** Seconds before an unanswered approval is denied in the `prompt-timeout` mode. */
export const SHORT_APPROVAL_TIMEOUT_SEC = 2;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Operator {
  /** Set once the final request (the one left pending) is waiting. */
  finalPending: boolean;
  stopped: boolean;
  readonly outputs: string[];
}

/** Answers every pending request per the mode, except the final one, until stopped. */
async function operate(sw: ScenarioWorld, scenario: Scenario, dir: string, op: Operator) {
  const answered = new Set<string>();
  while (!op.stopped) {
    const listed = await listSessionApprovals(dir).catch(() => ({ approvals: [] }));
    for (const request of listed.approvals) {
      if (request.arguments.includes(':final')) op.finalPending = true;
      else if (!answered.has(request.id) && scenario.approval !== 'prompt-timeout') {
        answered.add(request.id);
        const verb = scenario.approval === 'prompt-yes' ? 'approve' : 'deny';
        const sid = dir.split('/').at(-1) ?? '';
        const run = await cli(sw, ['session', verb, sid, request.id]);
        op.outputs.push(run.stdout, run.stderr);
      }
    }
    await sleep(200);
  }
}

function cli(sw: ScenarioWorld, args: readonly string[], timeoutMs?: number): Promise<CliRun> {
  const w = sw.world;
  return startCli([...args, ...sw.dirArgs], w.env, w.workDir, timeoutMs).done;
}

async function sessionDir(sw: ScenarioWorld): Promise<string> {
  let id = '';
  await waitFor(async () => {
    const ids = await readdir(join(sw.world.stateDir, 'sessions')).catch(() => []);
    id = ids[0] ?? '';
    return id !== '';
  }, 60_000);
  return join(sw.world.stateDir, 'sessions', id);
}

/** Ends the session the scenario's way; returns what went wrong, if anything. */
async function endSession(sw: ScenarioWorld, scenario: Scenario, exec: RunningCli, dir: string) {
  const problems: string[] = [];
  if (scenario.end === 'session-stop') {
    const stop = await cli(sw, ['session', 'stop', dir.split('/').at(-1) ?? '']);
    if (stop.code !== 0) problems.push(`session stop exited ${String(stop.code)}: ${stop.stderr}`);
    return { problems, outputs: [stop.stdout, stop.stderr] };
  }
  const signal = { sigint: 'SIGINT', sigterm: 'SIGTERM', 'kill-supervisor': 'SIGKILL' } as const;
  if (scenario.end !== 'natural') exec.kill(signal[scenario.end]);
  return { problems, outputs: [] };
}

async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Command lines of the processes holding the canary now (only its server's may). */
async function canaryHolders(canary: string): Promise<string[]> {
  return Promise.all((await processesMentioning(canary)).map(cmdline));
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
  const due = final ? waitFor(() => run.op.finalPending, 300_000) : run.lastStep;
  const problems: string[] = [];
  const gone = run.exec.done.then(() => 'gone' as const);
  const reached = await Promise.race([withinMs(due, 300_000), gone]);
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
  let exec: RunningCli | undefined;
  let finished = false;
  try {
    model = await startScriptedModel(script.handler);
    const world = await scenarioWorld(scenario, model.baseUrl);
    sw = world;
    const timeout = scenario.approval === 'prompt-timeout' ? SHORT_APPROVAL_TIMEOUT_SEC : 300;
    const args = ['exec', world.world.packDir, 'lead the work', '--approval-timeout'];
    exec = startCli(
      [...args, String(timeout), ...world.dirArgs],
      world.world.env,
      world.world.workDir,
      400_000,
    );
    const done = exec.done.then((r) => {
      finished = true;
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
    if (exec !== undefined && !finished) {
      exec.kill('SIGKILL');
      await exec.done;
    }
    script.release();
    await model?.close();
    if (sw !== undefined) await removeTree(sw.world.root);
  }
}
