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
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { stringify } from 'smol-toml';

const root = '/work/main/';
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
const GOAL_MS = 150;
const cli = dist('cli/main.js');
const codexBin = join(root, 'node_modules', '.bin', 'codex');
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

const work = mkdtempSync(join(tmpdir(), 'codex-mmo-bench-'));
const model = await startScriptedModel(() => [{ type: 'message', text: 'ok' }]);
try {
  const configDir = join(work, 'config');
  const dataDir = join(work, 'data');
  const stateDir = join(work, 'state');
  const packDir = join(work, 'pack');
  const cwd = join(work, 'cwd');
  const home = join(work, 'home');
  for (const dir of [join(configDir, 'tool-mcp.d'), dataDir, stateDir, packDir, cwd, home]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(
    join(configDir, 'tool-mcp.d', '10-bench.toml'),
    `schema_version = 8
[tool_mcp_servers.echo]
transport = "stdio"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(echoServer)}]
env_vars = ["ECHO_TOKEN"]
enabled_tools = ["echo"]
default_tools_approval_mode = "approve"
`,
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
spawn = ["worker"]
control = ["worker"]

[agents.lead.tool_mcp_servers.echo]

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


  console.log(JSON.stringify({ cmd: [process.execPath, cli, 'exec', packDir, 'hello', ...dirArgs, '--codex-bin', codexBin], env, cwd }));
  await new Promise((r) => process.on('SIGTERM', r));
} finally { await model.close(); }
