/**
 * The operator's side of a scenario: finds the session, answers its approval requests per the
 * approval mode (listing them through the library, as `session approvals` does, and answering
 * with `codex-mmo session approve|deny`), leaves the final request pending, and ends the session
 * the scenario's way (`session stop`, SIGINT, SIGTERM, `kill -9` of the supervisor).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { listSessionApprovals } from '../../src/runtime/approvals/session-approvals.js';
import { startCli, waitFor, type CliRun, type RunningCli } from '../support/world.js';
import type { Scenario } from './scenario-matrix.js';
import type { ScenarioWorld } from './scenario-world.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Operator {
  /** Set once the final request (the one left pending) is waiting. */
  finalPending: boolean;
  stopped: boolean;
  readonly outputs: string[];
}

/** Answers every pending request per the mode, except the final one, until stopped. */
export async function operate(sw: ScenarioWorld, scenario: Scenario, dir: string, op: Operator) {
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

export function cli(
  sw: ScenarioWorld,
  args: readonly string[],
  timeoutMs?: number,
): Promise<CliRun> {
  const w = sw.world;
  return startCli([...args, ...sw.dirArgs], w.env, w.workDir, timeoutMs).done;
}

export async function sessionDir(sw: ScenarioWorld): Promise<string> {
  let id = '';
  await waitFor(async () => {
    const ids = await readdir(join(sw.world.stateDir, 'sessions')).catch(() => []);
    id = ids[0] ?? '';
    return id !== '';
  }, 60_000);
  return join(sw.world.stateDir, 'sessions', id);
}

/** Ends the session the scenario's way; returns what went wrong, if anything. */
export async function endSession(
  sw: ScenarioWorld,
  scenario: Scenario,
  exec: RunningCli,
  dir: string,
) {
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
