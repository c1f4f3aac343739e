// Lean sessions benchmark, against real Codex and a scripted local model (no network, no API key).
// A real `codex-mmo exec` session whose lead spawns N workers through mmo_mesh; lead and workers
// are each granted the same M stdio servers. While every worker holds its first turn, the
// session's processes are counted and their RSS and PSS (shared pages split between the processes
// sharing them) read from /proc: Codex's native binaries, the Tool MCP servers, and codex-mmo's
// own (the supervisor, any relay, mmo_mesh or launcher process, the containers' `unshare` and
// init processes). Run for N = 0 and N = BENCH_WORKERS, the difference in codex-mmo's own memory
// divided by N is what codex-mmo adds per Codex process (goal <= 20 MB). Then the same team with
// every server optional and pinned (BENCH_LEASED=0 skips it): leased servers the model does not
// use never start; and with every server `shared = true` (BENCH_SHARED=0 skips it). BENCH_CLI
// runs another build (`dist/cli/main.js` of an earlier tree); BENCH_CODEX_BIN another Codex
// launcher (`node_modules/codex-0149/bin/codex.js` for 0.149).
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';

import { stringify } from 'smol-toml';

// not under the system temporary directory: there Codex makes no PATH helpers, and each file
// lookup its sandbox makes for the session's read boundary costs several times as much
// (docs/benchmarks.md); operators' homes live under their state dir
const benchBase = () => {
  const base = process.env.BENCH_DIR ?? join(homedir(), '.cache');
  mkdirSync(base, { recursive: true });
  return base;
};
const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => join(root, 'dist', path);
const { startScriptedModel, scriptedProviderConfig } = await import(
  dist('runtime/codex/scripted-model.js')
);

const WORKERS = Number(process.env.BENCH_WORKERS ?? 4);
const SERVERS = Number(process.env.BENCH_SERVERS ?? 5);
const GOAL_MB = 20;
const cli = process.env.BENCH_CLI ?? dist('cli/main.js');
// a relative path is taken from where the bench was started, whatever directory it runs Codex in
const codexBin = resolve(
  process.env.BENCH_CODEX_BIN ?? join(root, 'node_modules', '.bin', 'codex'),
);
const echoServer = join(root, 'test', 'fixtures', 'servers', 'echo-server.mjs');

/** Held model requests, answered when the census is done. */
const held = [];
let census = () => undefined;
let wanted = 0;
const workerTurns = new Set();

function script(request) {
  const isWorker = request.developerTexts.some((t) => t.includes('ROLE-WORKER'));
  if (isWorker) {
    workerTurns.add(request.threadId);
    if (workerTurns.size >= wanted) census();
    return new Promise((resolve) => held.push(() => resolve([{ type: 'message', text: 'done' }])));
  }
  const step = request.toolOutputs.length;
  if (step < wanted) {
    return [
      {
        type: 'function_call',
        namespace: 'mcp__mmo_mesh',
        name: 'spawn_participant',
        arguments: { role: 'worker', task: `task ${step}` },
      },
    ];
  }
  if (wanted === 0) census();
  return new Promise((resolve) => held.push(() => resolve([{ type: 'message', text: 'done' }])));
}

function rssKb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Proportional set size: shared pages split between the processes that share them. */
function pssKb(pid) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

function kindOf(pid, cmdline, supervisorPid) {
  if (pid === supervisorPid) return 'supervisor';
  if (cmdline.includes('codex-mmo-container') || /^\S*unshare /.test(cmdline)) return 'container';
  if (cmdline.includes('gateway connect')) return 'relay';
  if (cmdline.includes('mesh serve')) return 'mesh';
  if (/codex\.js/.test(cmdline)) return 'launcher';
  if (/\/codex (exec|app-server)/.test(cmdline)) return 'codex';
  if (cmdline.includes('echo-server')) return 'server';
  return 'other';
}

/**
 * The session's processes: the supervisor and every process descending from it, or carrying the
 * session's marker (a process that left its group), by kind, with RSS and PSS. Processes between
 * Codex or a server and the supervisor are the containers' `unshare` and init processes.
 */
function countProcesses(stateDir, supervisorPid) {
  const markers = readdirSync(join(stateDir, 'sessions')).map((id) => `CODEX_MMO_SESSION=${id}\0`);
  const pids = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
  const parents = new Map(pids.map((pid) => [pid, parentOf(pid)]));
  const descends = (pid) => {
    for (let p = pid; p > 1; p = parents.get(p) ?? 0) if (p === supervisorPid) return true;
    return false;
  };
  const kinds = {};
  for (const pid of pids) {
    let environ = '';
    let cmdline = '';
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    if (!descends(pid) && !markers.some((m) => environ.includes(m))) continue;
    const kind = kindOf(pid, cmdline, supervisorPid);
    const entry = (kinds[kind] ??= { count: 0, rssKb: 0, pssKb: 0 });
    entry.count += 1;
    entry.rssKb += rssKb(pid);
    entry.pssKb += pssKb(pid);
  }
  return kinds;
}

async function session(workers, { leased = false, shared = false } = {}) {
  const work = mkdtempSync(join(benchBase(), 'codex-mmo-bench-lean-'));
  wanted = workers;
  workerTurns.clear();
  held.length = 0;
  const model = await startScriptedModel(script);
  try {
    const configDir = join(work, 'config');
    const stateDir = join(work, 'state');
    const packDir = join(work, 'pack');
    const home = join(work, 'home');
    for (const dir of [join(configDir, 'tool-mcp.d'), stateDir, packDir, join(work, 'cwd'), home]) {
      mkdirSync(dir, { recursive: true });
    }
    const ids = Array.from({ length: SERVERS }, (_, i) => `s${i + 1}`);
    writeFileSync(
      join(configDir, 'tool-mcp.d', '10-bench.toml'),
      'schema_version = 8\n' +
        ids
          .map(
            (id) => `[tool_mcp_servers.${id}]
transport = "stdio"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(echoServer)}, "--tools", "note"]
enabled_tools = ["note"]
default_tools_approval_mode = "approve"
${shared ? 'shared = true\n' : ''}`,
          )
          .join('\n'),
    );
    writeFileSync(
      join(configDir, 'codex-base.toml'),
      stringify(scriptedProviderConfig(model.baseUrl)),
    );
    const grants = (role) =>
      ids
        .map((id) => `[agents.${role}.tool_mcp_servers.${id}]\nrequired = ${String(!leased)}\n`)
        .join('\n');
    writeFileSync(
      join(packDir, 'profile.toml'),
      `schema_version = 8
name = "lean"
root = "lead"

[agents.lead]
description = "lead"
instructions = "ROLE-LEAD"
spawn = ["worker"]
control = ["worker"]

${grants('lead')}
[agents.worker]
description = "worker"
instructions = "ROLE-WORKER"

${grants('worker')}`,
    );
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      CODEX_HOME: join(home, '.codex'),
    };
    // optional and pinned: each server is answered from its pin's lease until it is used
    if (leased) for (const id of ids) await pin(id, configDir, env);
    const child = spawn(
      process.execPath,
      [
        cli,
        'exec',
        packDir,
        'go',
        '--config-dir',
        configDir,
        '--data-dir',
        join(work, 'data'),
        '--state-dir',
        stateDir,
        '--codex-bin',
        codexBin,
      ],
      { env, cwd: join(work, 'cwd'), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise((resolve) => child.on('close', resolve));
    const counted = await Promise.race([
      new Promise((resolve) => {
        census = () => {
          census = () => undefined;
          // let every server finish starting before reading
          setTimeout(() => resolve(countProcesses(stateDir, child.pid)), 1500);
        };
      }),
      exited.then((code) => {
        throw new Error(`codex-mmo exec ended (${code}) before the census:\n${stderr}`);
      }),
    ]);
    for (const release of held.splice(0)) release();
    const poll = setInterval(() => {
      for (const release of held.splice(0)) release();
    }, 200);
    await exited;
    clearInterval(poll);
    // what codex-mmo printed besides its result: a warning would show here
    for (const line of stderr.split('\n').filter((l) => /warning/i.test(l)))
      console.log(`  ${line}`);
    return counted;
  } finally {
    await model.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function pin(id, configDir, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'tool-mcp', 'pin', id, '--config-dir', configDir], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`tool-mcp pin ${id} failed:\n${stderr}`)),
    );
  });
}

const OWN = ['supervisor', 'relay', 'mesh', 'launcher', 'container', 'other'];
const own = (kinds, field = 'rssKb') => OWN.reduce((sum, k) => sum + (kinds[k]?.[field] ?? 0), 0);
const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;

const alone = await session(0);
const team = await session(WORKERS);
const leasedTeam =
  process.env.BENCH_LEASED === '0' ? undefined : await session(WORKERS, { leased: true });
const sharedTeam =
  process.env.BENCH_SHARED === '0' ? undefined : await session(WORKERS, { shared: true });
console.log(
  `lean sessions (a lead and ${WORKERS} workers, each granted ${SERVERS} stdio servers; Node ${process.version}; load ${loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')}, ${cpus().length} CPUs)`,
);
for (const [label, kinds] of [
  ['lead alone', alone],
  [`lead + ${WORKERS} workers`, team],
]) {
  console.log(`  ${label}:`);
  for (const [kind, { count, rssKb: kb, pssKb: pss }] of Object.entries(kinds).sort()) {
    console.log(
      `    ${kind.padEnd(11)} ${String(count).padStart(3)} processes  RSS ${mb(kb).padStart(9)}  PSS ${mb(pss).padStart(9)}`,
    );
  }
}
const perProcess = (own(team) - own(alone)) / WORKERS;
const perProcessPss = (own(team, 'pssKb') - own(alone, 'pssKb')) / WORKERS;
console.log(
  `  codex-mmo's own memory per added Codex process (its containers, and the supervisor's growth): RSS ${mb(perProcess)} (goal <= ${GOAL_MB} MB: ${perProcess / 1024 <= GOAL_MB ? 'met' : 'NOT met'}), PSS ${mb(perProcessPss)}; the supervisor itself: RSS ${mb(team.supervisor?.rssKb ?? 0)}`,
);
console.log(
  `  server processes: ${team.server?.count ?? 0} for ${WORKERS + 1} Codex processes x ${SERVERS} servers`,
);
if (leasedTeam !== undefined) {
  console.log(
    `  the same team with every server optional (required = false) and pinned, none used: ${leasedTeam.server?.count ?? 0} server processes (answered from their leases); codex-mmo's own RSS ${mb(own(leasedTeam))} vs ${mb(own(team))} with every server running`,
  );
}
if (sharedTeam !== undefined) {
  console.log(
    `  the same team with every server shared = true: ${sharedTeam.server?.count ?? 0} server processes for ${WORKERS + 1} Codex processes x ${SERVERS} servers; servers' RSS ${mb(sharedTeam.server?.rssKb ?? 0)} vs ${mb(team.server?.rssKb ?? 0)} unshared`,
  );
}
