// Launch benchmark, against real Codex and a scripted local model (no network, no API key).
// 1. Overhead of `codex-mmo exec P PROMPT` over plain `codex exec` configured by hand with the
//    same model provider and the same stdio MCP server (what an operator would write in
//    config.toml without codex-mmo). codex-mmo's session adds its supervisor, the compile (memoized
//    after the first run), the private home, `mmo_mesh` and the gateway relay in front of the
//    server. Every session of codex-mmo gets a new, private Codex home, and Codex does first-run
//    work in a new home (it unpacks its system skills and creates its state databases), so plain
//    Codex runs on a fresh copy of its hand-written home: that difference is codex-mmo's overhead,
//    and the goal (<= 150 ms median) applies to it. Plain Codex on a warm home (one Codex has
//    already used) is measured too, to show what Codex's first run in a new home costs on top.
//    The three arms alternate in rotating order after warm-up rounds; medians, the median and
//    middle half of per-round differences, and the load average are reported.
// 2. Time for the session broker to spawn 1, 4, 8 and 16 participants at once (each a private
//    `codex app-server` whose required MCP server is up, through the session gateway, and whose
//    first turn has started), against the same number of plain `codex app-server` processes
//    started at once on fresh copies of the hand-written home, taken through the same steps
//    (initialize, thread/start, MCP servers ready, turn/start). Goals: spawn time grows linearly
//    with the number of participants, and stays within 1.2x of the plain start.
// BENCH_CODEX_BIN names the Codex launcher both sides run (default: the installed `codex`; for
// the older series, node_modules/codex-0149/bin/codex.js).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

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
const { compileProfile } = await import(dist('config/compile/compile-profile.js'));
const { resolveDirectories } = await import(dist('foundation/paths/directories.js'));
const { credentialSourceFrom } = await import(dist('config/registry/credentials.js'));
const { SessionBroker } = await import(dist('runtime/mesh/session-broker.js'));
const { SessionGateway } = await import(dist('runtime/gateway/session-gateway.js'));
const { AppServerClient } = await import(dist('runtime/codex/app-server-client.js'));
const { defaultCliLaunch } = await import(dist('runtime/mesh/mesh-command.js'));

const PAIRS = Number(process.env.BENCH_PAIRS ?? 20);
const WARMUP = 2;
const SPAWN_ROUNDS = Number(process.env.BENCH_SPAWN_ROUNDS ?? 3);
const SPAWN_COUNTS = (process.env.BENCH_SPAWN_COUNTS ?? '1,4,8,16').split(',').map(Number);
const SERVERS = Number(process.env.BENCH_SERVERS ?? 1);
// BENCH_MESH=0: a lead without participants, so no `mmo_mesh` (plain Codex has none either)
const MESH = process.env.BENCH_MESH !== '0';
if (!MESH && SPAWN_ROUNDS > 0) {
  console.error(
    'BENCH_MESH=0 measures exec alone (participants need mmo_mesh): add BENCH_SPAWN_ROUNDS=0',
  );
  process.exit(2);
}
const GOAL_MS = 150;
const cli = dist('cli/main.js');
// a relative path is taken from where the bench was started, whatever directory it runs Codex in
const codexBin = resolve(
  process.env.BENCH_CODEX_BIN ?? join(root, 'node_modules', '.bin', 'codex'),
);
const echoServer = join(root, 'test', 'fixtures', 'servers', 'echo-server.mjs');

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (value) => `${value.toFixed(0)} ms`;
const { descendants } = await import(dist('foundation/process/process-tree.js'));

// the sampler walks /proc every 250 ms in a thread of its own: on this thread it would take
// turns from the session's supervisor (the broker and gateway run here), and from it alone
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
let peak = 0;
let sample;
parentPort.on('message', () => {
  parentPort.postMessage(sample === undefined ? peak : Math.max(peak, sample()));
});
import(workerData.module).then(({ treeResidentMb }) => {
  sample = () => treeResidentMb(workerData.pid);
  const tick = () => {
    peak = Math.max(peak, sample());
    setTimeout(tick, 250).unref();
  };
  tick();
});
`;

/** `promise`'s value and the peak resident memory of this process's tree while it ran (MB). */
async function peakDuring(promise) {
  const worker = new Worker(SAMPLER, {
    eval: true,
    workerData: {
      module: pathToFileURL(dist('foundation/process/process-tree.js')).href,
      pid: process.pid,
    },
  });
  try {
    const value = await promise;
    const peaked = new Promise((resolve) => worker.once('message', resolve));
    worker.postMessage('stop');
    return { value, peak: await peaked };
  } finally {
    await worker.terminate();
  }
}

/** Waits until this process has no more descendants than `count` (every started one gone). */
async function settle(count) {
  for (let waited = 0; descendants(process.pid).length > count && waited < 60_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function run(command, args, env, cwd) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${stderr}`));
      else resolve(elapsed);
    });
  });
}

const work = mkdtempSync(join(benchBase(), 'codex-mmo-bench-'));
const model = await startScriptedModel(() => [{ type: 'message', text: 'ok' }]);
try {
  const configDir = join(work, 'config');
  const dataDir = join(work, 'data');
  const stateDir = join(work, 'state');
  const packDir = join(work, 'pack');
  const cwd = join(work, 'cwd');
  const home = join(work, 'home');
  // an operator who runs Codex has a base Codex home (here without a login: the provider is custom)
  const baseHome = join(home, '.codex');
  for (const dir of [join(configDir, 'tool-mcp.d'), dataDir, stateDir, packDir, cwd, baseHome]) {
    mkdirSync(dir, { recursive: true });
  }
  // BENCH_SERVERS stdio servers granted to the lead (default 1); BENCH_SERVER=python runs a small
  // Python server without an SDK instead of the Node fixture
  const serverCommand =
    process.env.BENCH_SERVER === 'python'
      ? { command: 'python3', args: [join(root, 'test', 'fixtures', 'servers', 'tiny-server.py')] }
      : { command: process.execPath, args: [echoServer] };
  const serverIds = Array.from({ length: SERVERS }, (_, i) => (i === 0 ? 'echo' : `echo${i + 1}`));
  writeFileSync(
    join(configDir, 'tool-mcp.d', '10-bench.toml'),
    `schema_version = 8\n${serverIds
      .map(
        (id) => `[tool_mcp_servers.${id}]
transport = "stdio"
command = ${JSON.stringify(serverCommand.command)}
args = ${JSON.stringify(serverCommand.args)}
env_vars = ["ECHO_TOKEN"]
enabled_tools = ["echo"]
default_tools_approval_mode = "approve"
`,
      )
      .join('\n')}`,
  );
  writeFileSync(join(configDir, 'credentials.env'), 'ECHO_TOKEN=bench-token\n', { mode: 0o600 });
  writeFileSync(
    join(configDir, 'codex-base.toml'),
    stringify(scriptedProviderConfig(model.baseUrl)),
  );
  writeFileSync(
    join(packDir, 'profile.toml'),
    `schema_version = 8
name = "bench"
root = "lead"

[agents.lead]
description = "lead"
instructions = "Lead."
${MESH ? 'spawn = ["worker"]\ncontrol = ["worker"]\n' : ''}
${serverIds.map((id) => `[agents.lead.tool_mcp_servers.${id}]\n`).join('\n')}
[agents.worker]
description = "worker"
instructions = "Worker."

[agents.worker.tool_mcp_servers.echo]
`,
  );
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CODEX_HOME: join(home, '.codex'),
  };
  const dirArgs = ['--config-dir', configDir, '--data-dir', dataDir, '--state-dir', stateDir];
  const mmoExec = (bin = codexBin) =>
    run(
      process.execPath,
      [cli, 'exec', packDir, 'hello', ...dirArgs, '--codex-bin', bin],
      env,
      cwd,
    );

  // plain Codex, configured by hand: the same provider and server, no codex-mmo
  const plainHome = join(work, 'plain-home');
  mkdirSync(plainHome, { recursive: true });
  writeFileSync(
    join(plainHome, 'config.toml'),
    stringify({
      ...scriptedProviderConfig(model.baseUrl),
      mcp_servers: Object.fromEntries(
        serverIds.map((id) => [
          id,
          { ...serverCommand, env_vars: ['ECHO_TOKEN'], enabled_tools: ['echo'], required: true },
        ]),
      ),
    }),
  );
  const plainEnv = { ...env, ECHO_TOKEN: 'bench-token' };
  const plainArgs = ['exec', '--skip-git-repo-check', '--', 'hello'];
  let fresh = 0;
  const freshExec = async () => {
    const copy = join(work, `fresh-home-${fresh++}`);
    cpSync(plainHome, copy, { recursive: true });
    try {
      return await run(codexBin, plainArgs, { ...plainEnv, CODEX_HOME: copy }, cwd);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  };
  // a warm home: the hand-written one after a first run of Codex
  const warmHome = join(work, 'warm-home');
  cpSync(plainHome, warmHome, { recursive: true });
  const warmExec = () => run(codexBin, plainArgs, { ...plainEnv, CODEX_HOME: warmHome }, cwd);
  await warmExec();

  const load = () =>
    loadavg()
      .map((v) => v.toFixed(2))
      .join(' ');
  // BENCH_PAIRS=0 skips this part
  if (PAIRS > 0) {
    const loadBefore = load();
    const arms = { mmo: mmoExec, fresh: freshExec, warm: warmExec };
    const names = Object.keys(arms);
    const times = { mmo: [], fresh: [], warm: [] };
    const diffFresh = [];
    const diffWarm = [];
    for (let i = 0; i < WARMUP + PAIRS; i++) {
      const round = {};
      // rotate the order, so no arm always runs first (or right after another)
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length];
        round[name] = await arms[name]();
      }
      if (i < WARMUP) continue;
      for (const name of names) times[name].push(round[name]);
      diffFresh.push(round.mmo - round.fresh);
      diffWarm.push(round.mmo - round.warm);
    }
    const overhead = median(diffFresh);
    const row = (label, values) =>
      console.log(
        `  ${label.padEnd(58)} median ${ms(median(values)).padStart(7)}  (min ${ms(Math.min(...values))})`,
      );
    console.log(
      `exec overhead (${PAIRS} rounds after ${WARMUP} warm-up rounds; scripted model, ${SERVERS === 1 ? 'one stdio MCP server' : `${SERVERS} stdio MCP servers`}${process.env.BENCH_SERVER === 'python' ? ' (Python)' : ''}${MESH ? ' + mmo_mesh' : ', no mmo_mesh'}; Node ${process.version})`,
    );
    console.log(`  load average before ${loadBefore}, after ${load()} (${cpus().length} CPUs)`);
    row('plain codex exec, fresh copy of its hand-written home', times.fresh);
    row('plain codex exec, warm home', times.warm);
    row('codex-mmo exec', times.mmo);
    console.log(
      `  overhead over plain Codex on a fresh home: median ${ms(overhead)}, middle half ${ms(quantile(diffFresh, 0.25))} to ${ms(quantile(diffFresh, 0.75))} (goal <= ${GOAL_MS} ms: ${overhead <= GOAL_MS ? 'met' : 'NOT met'})`,
    );
    console.log(
      `  over plain Codex on a warm home: median ${ms(median(diffWarm))} (adds Codex's own first run in a new home)`,
    );
    const ratio = median(times.mmo) / median(times.fresh);
    console.log(
      `  ratio of medians to plain Codex on a fresh home: ${ratio.toFixed(2)} (goal <= 1.3: ${ratio <= 1.3 ? 'met' : 'NOT met'})`,
    );
  }

  // participants: BENCH_SPAWN_ROUNDS=0 skips this part
  if (SPAWN_ROUNDS > 0) {
    // participants: spawn N at once through the session broker, as mmo_mesh does
    const dirs = resolveDirectories(env, home, { configDir, dataDir, stateDir });
    const compiled = await compileProfile({ nameOrPath: packDir, dirs, cwd });
    if (compiled.stored === undefined) throw new Error(JSON.stringify(compiled.diagnostics));
    const sessionDir = join(stateDir, 'sessions', 'bench-spawn');
    mkdirSync(join(sessionDir, 'logs'), { recursive: true });
    const credentials = credentialSourceFrom(
      { ECHO_TOKEN: 'bench-token' },
      env,
      join(configDir, 'credentials.env'),
      true,
    );
    // as in a session: every participant reaches its server through the session gateway
    const gateway = await SessionGateway.start({
      sessionDir,
      socketPath: join(work, 'gateway.sock'),
      snapshot: compiled.stored.snapshot,
      plan: compiled.plan,
      credentials,
      home,
      cli: defaultCliLaunch(),
      secrets: [],
    });
    const broker = await SessionBroker.start({
      sessionId: 'bench-spawn',
      sessionDir,
      socketPath: join(work, 'mesh.sock'),
      snapshot: compiled.stored.snapshot,
      plan: compiled.plan,
      launchEnv: env,
      credentials,
      home,
      baseCodexHome: env.CODEX_HOME,
      codexBin,
      cli: defaultCliLaunch(),
      defaultCwd: cwd,
      gateway,
      maxParticipants: Math.max(...SPAWN_COUNTS),
    });
    // plain Codex: an app-server on a fresh copy of the hand-written home, through the same steps
    let plainCopies = 0;
    const plainStart = async () => {
      const copy = join(work, `plain-app-${plainCopies++}`);
      cpSync(plainHome, copy, { recursive: true });
      const client = await AppServerClient.start({
        codexBin,
        codexHome: copy,
        env: { ...plainEnv, CODEX_HOME: copy },
        cwd,
        clientInfo: { name: 'bench', title: 'bench', version: '1' },
      });
      const { thread } = await client.startThread({ cwd });
      await client.waitForMcpStartup(thread.id, ['echo'], 60_000);
      await client.startTurn(thread.id, 'task');
      return { client, copy };
    };
    const lead = broker.backendFor({ process: 'lead', participant: 'root' });
    const rows = [];
    try {
      await lead.spawn({ role: 'worker', task: 'warm up' }).then((p) => lead.stop(p.participant));
      await plainStart().then(({ client }) => client.close());
      for (const count of SPAWN_COUNTS) {
        const times = [];
        const plain = [];
        const peaks = { mmo: [], plain: [] };
        const teardowns = { mmo: [], plain: [] };
        for (let round = 0; round < SPAWN_ROUNDS; round++) {
          const settled = descendants(process.pid).length;
          let started = process.hrtime.bigint();
          const spawning = peakDuring(
            Promise.all(
              Array.from({ length: count }, (_, k) =>
                lead.spawn({ role: 'worker', task: `task ${k}` }),
              ),
            ),
          );
          const { value: spawned, peak } = await spawning;
          times.push(Number(process.hrtime.bigint() - started) / 1e6);
          peaks.mmo.push(peak);
          started = process.hrtime.bigint();
          await Promise.all(spawned.map((p) => lead.stop(p.participant)));
          await settle(settled);
          teardowns.mmo.push(Number(process.hrtime.bigint() - started) / 1e6);
          started = process.hrtime.bigint();
          const opened = await peakDuring(
            Promise.all(Array.from({ length: count }, () => plainStart())),
          );
          plain.push(Number(process.hrtime.bigint() - started) / 1e6);
          peaks.plain.push(opened.peak);
          started = process.hrtime.bigint();
          await Promise.all(
            opened.value.map(async ({ client, copy }) => {
              await client.close();
              rmSync(copy, { recursive: true, force: true });
            }),
          );
          await settle(settled);
          teardowns.plain.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
        rows.push({
          count,
          median: median(times),
          plain: median(plain),
          peak: median(peaks.mmo),
          plainPeak: median(peaks.plain),
          teardown: median(teardowns.mmo),
          plainTeardown: median(teardowns.plain),
        });
      }
    } finally {
      await broker.close();
      await gateway.close();
    }
    console.log(
      `participant spawn (all at once; median of ${SPAWN_ROUNDS} rounds; each ready with its MCP server and first turn started) vs plain codex app-server`,
    );
    for (const { count, median: t, plain } of rows) {
      console.log(
        `  ${String(count).padStart(2)} participant${count === 1 ? ' ' : 's'}   ${ms(t).padStart(8)}   ${ms(t / count).padStart(7)} per participant   plain ${ms(plain).padStart(8)}   ratio ${(t / plain).toFixed(2)} (goal <= 1.2: ${t / plain <= 1.2 ? 'met' : 'NOT met'})`,
      );
    }
    console.log(
      '  peak resident memory of the whole tree while starting, and time until every process is gone after stopping',
    );
    for (const r of rows) {
      console.log(
        `  ${String(r.count).padStart(2)} at once   peak ${String(Math.round(r.peak))} MB (plain ${String(Math.round(r.plainPeak))} MB)   teardown ${ms(r.teardown)} (plain ${ms(r.plainTeardown)})`,
      );
    }
    const first = rows[0];
    const last = rows.at(-1);
    console.log(
      `  linearity: ${last.count} participants took ${(last.median / first.median).toFixed(1)}x the time of ${first.count} (per participant ${ms(last.median / last.count)} vs ${ms(first.median / first.count)})`,
    );
  }
} finally {
  await model.close();
  if (process.env.BENCH_KEEP === undefined) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
