// Compile benchmark: `snapshot compile` (load registry, pack, codex-base.toml and lock; resolve;
// build; store) and rendering every process, for generated registries of 250, 500 and 1,000
// servers and a pack of 100 roles (20 processes of a root and 4 native roles; each role granted
// 2% of the servers, some narrowed). Reports the median of several runs per size and the growth
// between sizes. Goal: linear growth, under 1 s at 1,000 servers x 100 roles.
// Every run starts from a collected heap, so that a garbage collection left over from the
// previous run is not billed to the next (on a busy 2-core machine that alone skewed growth).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { compileProfile, planOfSnapshot, renderAll, resolveDirectories } from '../dist/index.js';

const SIZES = [250, 500, 1000];
const ROLES = 100;
const PER_PROCESS = 5;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const GOAL_MS = 1000;
/** Largest time growth per doubling of the servers still called linear (timer and machine noise). */
const LINEAR_PER_DOUBLING = 2.4;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');

const toml = (value) => JSON.stringify(value);
const tomlArray = (values) => `[${values.map(toml).join(', ')}]`;

function serverToml(index) {
  const id = `srv-${String(index).padStart(4, '0')}`;
  const tools = Array.from({ length: 6 }, (_, t) => `tool_${t}`);
  const lines = [`[tool_mcp_servers.${id}]`];
  if (index % 2 === 0) {
    lines.push(
      'transport = "stdio"',
      'command = "mcp-server-everything"',
      `args = ${tomlArray(['stdio', `--instance=${index}`])}`,
      `env_vars = ${tomlArray([`SRV_${index}_TOKEN`])}`,
      `cwd = "~/work/${id}"`,
    );
  } else {
    lines.push(
      'transport = "streamable_http"',
      `url = "https://mcp${index}.example.com/mcp"`,
      `bearer_token_env_var = "SRV_${index}_TOKEN"`,
    );
  }
  lines.push(
    `enabled_tools = ${tomlArray(tools)}`,
    `default_tools_approval_mode = ${toml(['auto', 'prompt', 'writes', 'approve'][index % 4])}`,
    `startup_timeout_sec = ${10 + (index % 50)}`,
    `tool_timeout_sec = ${60 + index}`,
    '',
    `[tool_mcp_servers.${id}.tools.tool_5]`,
    'approval_mode = "prompt"',
    '',
  );
  return { id, text: lines.join('\n') };
}

function writeInputs(dir, servers) {
  const config = join(dir, 'config');
  const registry = join(config, 'tool-mcp.d');
  mkdirSync(registry, { recursive: true });
  const defs = Array.from({ length: servers }, (_, i) => serverToml(i));
  const fragments = 10;
  for (let f = 0; f < fragments; f++) {
    const chunk = defs.filter((_, i) => i % fragments === f).map((d) => d.text);
    writeFileSync(
      join(registry, `${String(f).padStart(2, '0')}-bench.toml`),
      `schema_version = 8\n\n${chunk.join('\n')}`,
    );
  }
  writeFileSync(
    join(config, 'codex-base.toml'),
    'model = "gpt-5.6-terra"\napproval_policy = "on-request"\n',
  );

  const pack = join(dir, 'pack');
  mkdirSync(pack);
  const perRole = Math.max(1, Math.round(servers * 0.02));
  const lines = ['schema_version = 8', 'name = "bench"', 'root = "role-000"', ''];
  const processRoots = [];
  for (let r = 0; r < ROLES; r += PER_PROCESS) processRoots.push(r);
  for (let r = 0; r < ROLES; r++) {
    const name = `role-${String(r).padStart(3, '0')}`;
    const isRoot = r % PER_PROCESS === 0;
    lines.push(
      `[agents.${name}]`,
      `description = "Bench role ${r}"`,
      `instructions = "You are bench role ${r}. Do the work you are given."`,
      `permissions = ${toml(['read-only', 'workspace-write', 'full-access'][r % 3])}`,
    );
    if (isRoot) {
      const natives = Array.from(
        { length: PER_PROCESS - 1 },
        (_, k) => `role-${String(r + k + 1).padStart(3, '0')}`,
      );
      lines.push(`native_agents = ${tomlArray(natives)}`);
      if (r === 0) {
        const participants = processRoots.slice(1).map((p) => `role-${String(p).padStart(3, '0')}`);
        lines.push(`spawn = ${tomlArray(participants)}`, `control = ${tomlArray(participants)}`);
      }
    }
    lines.push('');
    for (let g = 0; g < perRole; g++) {
      const server = defs[(r * perRole + g * 7) % servers].id;
      lines.push(`[agents.${name}.tool_mcp_servers.${server}]`);
      if (g % 3 === 0) lines.push('enabled_tools = ["tool_0", "tool_1"]');
      if (g % 4 === 0) lines.push('required = false');
      lines.push('');
    }
  }
  writeFileSync(join(pack, 'profile.toml'), lines.join('\n'));
  return { config, pack };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function measure(servers) {
  const dir = mkdtempSync(join(tmpdir(), 'codex-mmo-bench-compile-'));
  try {
    const { config, pack } = writeInputs(dir, servers);
    const samples = [];
    let shape;
    for (let run = 0; run < RUNS + 1; run++) {
      const data = join(dir, `data-${run}`);
      const dirs = resolveDirectories({}, dir, { configDir: config, dataDir: data, stateDir: dir });
      collectGarbage();
      const t0 = performance.now();
      const result = await compileProfile({ nameOrPath: pack, dirs, cwd: dir });
      const t1 = performance.now();
      if (result.stored === undefined || !result.created) {
        const first = result.diagnostics.find((d) => d.severity === 'error');
        throw new Error(`compile failed: ${first ? first.message : 'not created'}`);
      }
      const plan = planOfSnapshot(result.stored.snapshot);
      const homes = renderAll(result.stored.snapshot, plan, { home: '/home/bench' });
      const t2 = performance.now();
      if (run > 0) samples.push({ compile: t1 - t0, render: t2 - t1, total: t2 - t0 });
      let files = 0;
      let bytes = 0;
      let tables = 0;
      for (const home of homes) {
        for (const text of home.files.values()) {
          files++;
          bytes += text.length;
        }
      }
      for (const p of plan.processes) tables += p.servers.length * p.roles.length;
      shape = { processes: homes.length, files, tables, bytes };
      rmSync(data, { recursive: true, force: true });
    }
    return {
      servers,
      compile: median(samples.map((s) => s.compile)),
      render: median(samples.map((s) => s.render)),
      total: median(samples.map((s) => s.total)),
      ...shape,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (const size of SIZES) results.push(await measure(size));

const ms = (v) => `${v.toFixed(0).padStart(5)} ms`;
console.log(`compile + render, ${ROLES} roles, median of ${RUNS} runs (Node ${process.version})`);
console.log('servers   compile    render     total   processes  files  server tables  output');
for (const r of results) {
  console.log(
    `${String(r.servers).padStart(7)}  ${ms(r.compile)}  ${ms(r.render)}  ${ms(r.total)}  ${String(r.processes).padStart(10)}  ${String(r.files).padStart(5)}  ${String(r.tables).padStart(13)}  ${(r.bytes / 1024 / 1024).toFixed(1)} MiB`,
  );
}
let linear = true;
for (let k = 1; k < results.length; k++) {
  const a = results[k - 1];
  const b = results[k];
  const growth = b.total / a.total;
  const doublings = Math.log2(b.servers / a.servers);
  if (growth > LINEAR_PER_DOUBLING ** doublings) linear = false;
  console.log(
    `growth ${a.servers} -> ${b.servers} servers (x${(b.servers / a.servers).toFixed(1)}): time x${growth.toFixed(2)} (compile x${(b.compile / a.compile).toFixed(2)}, render x${(b.render / a.render).toFixed(2)})`,
  );
}
const last = results[results.length - 1];
const fast = last.total < GOAL_MS;
console.log(
  `goal: under ${GOAL_MS} ms at ${last.servers} servers x ${ROLES} roles: ${fast ? 'met' : 'NOT met'} (${last.total.toFixed(0)} ms)`,
);
console.log(
  `goal: linear growth (at most x${LINEAR_PER_DOUBLING} per doubling): ${linear ? 'met' : 'NOT met'}`,
);
process.exitCode = fast && linear ? 0 : 1;
