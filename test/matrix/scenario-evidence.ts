/**
 * What an ended scenario left, gathered for the invariant checks: the session's own records as
 * an operator reads them (`session show|calls|logs --json`, approvals.jsonl), the calls the
 * servers themselves logged, what each role's model was offered, every file under the data,
 * state, work and home directories, leftover sockets and key files, and the processes still
 * naming the session, its world or the canary.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { ModelRequest } from '../../src/runtime/codex/scripted-model.js';
import { allText, processesMentioning, type CliRun } from '../support/world.js';
import type { Scenario } from './scenario-matrix.js';
import { roleOfRequest } from './scenario-script.js';
import type { ScenarioWorld } from './scenario-world.js';

type Json = Record<string, unknown>;

export interface ScenarioEvidence {
  readonly scenario: Scenario;
  readonly canary: string;
  readonly exec: CliRun;
  /** stdout and stderr of every other codex-mmo command the operator ran. */
  readonly outputs: readonly string[];
  readonly show: Json;
  readonly calls: readonly Json[];
  readonly events: readonly Json[];
  readonly approvals: readonly Json[];
  /** The `text` argument of every call that reached a server, by server. */
  readonly reached: readonly { server: string; text: string }[];
  readonly requests: readonly { role: string | undefined; mcp: Record<string, string[]> }[];
  /** Every model request body as sent, for canary scans. */
  readonly requestText: string;
  readonly modelErrors: readonly string[];
  readonly files: string;
  /** Sockets, key and token files left by the session. */
  readonly leftovers: readonly string[];
  /** `pid cmdline` of processes still naming the session, its world or the canary. */
  readonly survivors: readonly string[];
  /** Command lines of the processes that held the canary while the session ran. */
  readonly canaryHolders: readonly string[];
}

export interface EvidenceInput {
  readonly scenario: Scenario;
  readonly sw: ScenarioWorld;
  readonly dir: string;
  readonly exec: CliRun;
  readonly outputs: string[];
  readonly requests: readonly ModelRequest[];
  readonly modelErrors: readonly string[];
  readonly canaryHolders: readonly string[];
  cli(args: readonly string[]): Promise<CliRun>;
}

const jsonLines = (text: string): Json[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);

/** `pid command line` of a process (`pid ` once it is gone). */
export const cmdline = async (pid: number): Promise<string> =>
  `${String(pid)} ${(await readFile(`/proc/${String(pid)}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ')}`;

async function survivors(marks: readonly string[], waitMs: number): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const pids = new Set<number>();
    for (const mark of marks) for (const pid of await processesMentioning(mark)) pids.add(pid);
    if (pids.size === 0 || Date.now() > deadline) return Promise.all([...pids].map(cmdline));
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function leftovers(dir: string, record: Json): Promise<string[]> {
  const inDir = (await readdir(dir, { recursive: true }).catch(() => []))
    .map(String)
    .filter((f) => /(\.sock|\.key|\.token)$|(^|\/)tokens$/.test(f));
  const named = [record.mesh_socket, record.approvals_socket].filter(
    (p): p is string => typeof p === 'string' && existsSync(p),
  );
  return [...inDir, ...named];
}

export async function collectEvidence(input: EvidenceInput): Promise<ScenarioEvidence> {
  const { sw, dir, scenario } = input;
  const id = dir.split('/').at(-1) ?? '';
  const w = sw.world;
  // the watchdog takes its grace period (5 s) and a sweep after a killed supervisor
  const left = await survivors(
    [id, w.root, sw.canary],
    scenario.end === 'kill-supervisor' ? 30_000 : 10_000,
  );
  const run = async (args: string[]): Promise<CliRun> => {
    const result = await input.cli(args);
    input.outputs.push(result.stdout, result.stderr);
    return result;
  };
  const show = JSON.parse((await run(['session', 'show', id, '--json'])).stdout || '{}') as Json;
  const calls =
    (
      JSON.parse((await run(['session', 'calls', id, '--json'])).stdout || '{}') as {
        calls?: Json[];
      }
    ).calls ?? [];
  const events = jsonLines((await run(['session', 'logs', id, '--json'])).stdout);
  const approvals = jsonLines(await readFile(join(dir, 'approvals.jsonl'), 'utf8').catch(() => ''));
  const reached: { server: string; text: string }[] = [];
  for (const [server, file] of Object.entries(sw.callLogs)) {
    for (const entry of jsonLines(await readFile(file, 'utf8').catch(() => ''))) {
      const args = (entry.arguments ?? {}) as { text?: unknown };
      reached.push({
        server,
        text: typeof args.text === 'string' ? args.text : JSON.stringify(entry),
      });
    }
  }
  const files = (
    await Promise.all([w.dataDir, w.stateDir, w.workDir, w.home].map((d) => allText(d)))
  ).join('\n');
  const record = JSON.parse(
    await readFile(join(dir, 'session.json'), 'utf8').catch(() => '{}'),
  ) as Json;
  return {
    scenario,
    canary: sw.canary,
    exec: input.exec,
    outputs: input.outputs,
    show,
    calls,
    events,
    approvals,
    reached,
    requests: input.requests.map((r) => ({ role: roleOfRequest(r), mcp: r.offeredTools.mcp })),
    requestText: input.requests.map((r) => JSON.stringify(r.body)).join('\n'),
    modelErrors: input.modelErrors,
    files,
    leftovers: await leftovers(dir, record),
    survivors: left,
    canaryHolders: input.canaryHolders,
  };
}
