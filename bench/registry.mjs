// Registry benchmark: `codex-mmo tool-mcp validate --json` (readiness included: every command is
// resolved on PATH and every referenced variable is present) and `codex-mmo tool-mcp list --json`
// on a generated registry of 200 servers in 20 fragments, each against real `codex mcp list
// --json` on the equivalent Codex config.toml. The three commands run in alternating order in one
// process; reports the median of each and, per codex-mmo command, the median of per-pair ratios.
// Goal: each codex-mmo command takes at most 0.8x Codex's time.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVERS = 200;
const FRAGMENTS = 20;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 15);
const WARMUP = 2;
const GOAL = 0.8;

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'cli', 'main.js');
const codexBin = join(root, 'node_modules', '.bin', 'codex');

const toml = (value) => JSON.stringify(value);
const tomlArray = (values) => `[${values.map(toml).join(', ')}]`;

/** One server's fields, shared by both renderings. */
function server(index) {
  const id = `srv-${String(index).padStart(3, '0')}`;
  const tools = Array.from({ length: 6 }, (_, t) => `tool_${t}`);
  const common = {
    enabled_tools: tools,
    default_tools_approval_mode: ['auto', 'prompt', 'writes', 'approve'][index % 4],
    startup_timeout_sec: 10 + (index % 20),
    tool_timeout_sec: 60 + index,
    tools: { tool_0: 'prompt', tool_1: 'approve' },
  };
  if (index % 2 === 0) {
    return {
      id,
      transport: 'stdio',
      command: 'mcp-server-everything',
      args: ['stdio', `--instance=${index}`],
      env_vars: [`SRV_${index}_TOKEN`, `SRV_${index}_HOST`],
      env: { LOG_LEVEL: 'info', REGION: `r${index % 5}` },
      ...common,
    };
  }
  return {
    id,
    transport: 'streamable_http',
    url: `https://mcp${index}.example.com/mcp`,
    bearer_token_env_var: `SRV_${index}_TOKEN`,
    http_headers: { 'X-Client-Name': 'bench' },
    env_http_headers: { 'X-Workspace': `SRV_${index}_WORKSPACE` },
    ...common,
  };
}

/** The fields of a server as TOML lines under its table (transport-specific keys, then common). */
function body(s, { withTransport }) {
  const lines = [];
  if (withTransport) lines.push(`transport = ${toml(s.transport)}`);
  if (s.transport === 'stdio') {
    lines.push(`command = ${toml(s.command)}`, `args = ${tomlArray(s.args)}`);
    lines.push(`env_vars = ${tomlArray(s.env_vars)}`);
  } else {
    lines.push(`url = ${toml(s.url)}`, `bearer_token_env_var = ${toml(s.bearer_token_env_var)}`);
  }
  lines.push(
    `enabled_tools = ${tomlArray(s.enabled_tools)}`,
    `default_tools_approval_mode = ${toml(s.default_tools_approval_mode)}`,
    `startup_timeout_sec = ${s.startup_timeout_sec}`,
    `tool_timeout_sec = ${s.tool_timeout_sec}`,
  );
  return lines;
}

function subtables(prefix, s) {
  const lines = [];
  const table = (name, entries) => {
    lines.push('', `[${prefix}.${name}]`);
    for (const [k, v] of Object.entries(entries)) lines.push(`${toml(k)} = ${toml(v)}`);
  };
  if (s.env) table('env', s.env);
  if (s.http_headers) table('http_headers', s.http_headers);
  if (s.env_http_headers) table('env_http_headers', s.env_http_headers);
  for (const [tool, mode] of Object.entries(s.tools)) {
    lines.push('', `[${prefix}.tools.${tool}]`, `approval_mode = ${toml(mode)}`);
  }
  return lines;
}

function generate(base) {
  const configDir = join(base, 'config');
  const registryDir = join(configDir, 'tool-mcp.d');
  const codexHome = join(base, 'codex-home');
  mkdirSync(registryDir, { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  const servers = Array.from({ length: SERVERS }, (_, i) => server(i));
  const perFragment = SERVERS / FRAGMENTS;
  for (let f = 0; f < FRAGMENTS; f++) {
    const lines = ['schema_version = 8'];
    for (const s of servers.slice(f * perFragment, (f + 1) * perFragment)) {
      const prefix = `tool_mcp_servers.${s.id}`;
      lines.push('', `[${prefix}]`, ...body(s, { withTransport: true }), ...subtables(prefix, s));
    }
    writeFileSync(
      join(registryDir, `${String(f).padStart(2, '0')}-bench.toml`),
      `${lines.join('\n')}\n`,
    );
  }
  const codexLines = [];
  for (const s of servers) {
    const prefix = `mcp_servers.${s.id}`;
    codexLines.push(
      '',
      `[${prefix}]`,
      ...body(s, { withTransport: false }),
      ...subtables(prefix, s),
    );
  }
  writeFileSync(join(codexHome, 'config.toml'), `${codexLines.join('\n').trimStart()}\n`);
  return { configDir, codexHome };
}

function timed(command, args, env) {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.error) throw result.error;
  return { ms, status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// `node bench/registry.mjs --generate DIR` only writes the registry (DIR/config) and the Codex
// home (DIR/codex-home), for profiling one side by hand.
const generateIndex = process.argv.indexOf('--generate');
if (generateIndex !== -1) {
  const target = process.argv[generateIndex + 1];
  if (target === undefined) throw new Error('--generate needs a directory');
  const { configDir, codexHome } = generate(target);
  process.stdout.write(`registry: ${configDir}\nCodex home: ${codexHome}\n`);
  process.exit(0);
}

const base = mkdtempSync(join(tmpdir(), 'codex-mmo-bench-'));
try {
  const { configDir, codexHome } = generate(base);
  // every referenced variable is set and the stdio command is on PATH, so validation is complete
  const variables = {};
  for (let i = 0; i < SERVERS; i++) {
    for (const suffix of ['TOKEN', 'HOST', 'WORKSPACE']) variables[`SRV_${i}_${suffix}`] = 'x';
  }
  const env = {
    ...process.env,
    ...variables,
    PATH: [join(root, 'node_modules', '.bin'), process.env.PATH ?? ''].join(delimiter),
    CODEX_HOME: codexHome,
    // an isolated state dir: the warm-up rounds fill codex-mmo's fragment cache there
    CODEX_MMO_STATE_DIR: join(base, 'state'),
  };
  const runList = () =>
    timed(process.execPath, [cli, 'tool-mcp', 'list', '--json', '--config-dir', configDir], env);
  const runValidate = () =>
    timed(
      process.execPath,
      [cli, 'tool-mcp', 'validate', '--json', '--config-dir', configDir],
      env,
    );
  const runCodex = () => timed(codexBin, ['mcp', 'list', '--json'], env);

  // all must see all 200 servers (validate: all ok), or the comparison is meaningless
  const list = runList();
  const validate = runValidate();
  const codex = runCodex();
  const listCount = list.status === 0 ? JSON.parse(list.stdout).servers.length : -1;
  const validCount =
    validate.status === 0 ? JSON.parse(validate.stdout).servers.filter((s) => s.ok).length : -1;
  const codexCount = codex.status === 0 ? JSON.parse(codex.stdout).length : -1;
  if (listCount !== SERVERS || validCount !== SERVERS || codexCount !== SERVERS) {
    throw new Error(
      `expected ${SERVERS} servers from each; codex-mmo listed ${listCount} (exit ${list.status}), ` +
        `validated ${validCount} (exit ${validate.status}), codex listed ${codexCount} (exit ${codex.status})\n` +
        `${list.stderr}${validate.stderr}${codex.stderr}`,
    );
  }

  for (let i = 0; i < WARMUP; i++) {
    runList();
    runValidate();
    runCodex();
  }
  const load = () =>
    loadavg()
      .map((v) => v.toFixed(2))
      .join(' ');
  const loadBefore = load();
  const times = { list: [], validate: [], codex: [] };
  const ratios = { list: [], validate: [] };
  const runs = { list: runList, validate: runValidate, codex: runCodex };
  // rotate the order every round, so no command always runs first or on a warmer cache
  const orders = [
    ['list', 'codex', 'validate'],
    ['codex', 'validate', 'list'],
    ['validate', 'list', 'codex'],
    ['codex', 'list', 'validate'],
  ];
  for (let i = 0; i < PAIRS; i++) {
    const round = {};
    for (const name of orders[i % orders.length]) {
      const r = runs[name]();
      if (r.status !== 0) throw new Error(`${name} failed (exit ${r.status})\n${r.stderr}`);
      round[name] = r.ms;
      times[name].push(r.ms);
    }
    ratios.list.push(round.list / round.codex);
    ratios.validate.push(round.validate / round.codex);
  }
  const f = (ms) => `${ms.toFixed(1)} ms`;
  const row = (label, values) =>
    `${label.padEnd(36)} median ${f(median(values))}  (min ${f(Math.min(...values))})`;
  const verdict = (label, values) => {
    const ratio = median(values);
    return `median ratio ${label.padEnd(23)} ${ratio.toFixed(2)}x  (goal <= ${GOAL}x: ${ratio <= GOAL ? 'met' : 'NOT met'})`;
  };
  process.stdout.write(
    [
      `registry: ${SERVERS} servers in ${FRAGMENTS} fragments; ${PAIRS} rounds after ${WARMUP} warm-up rounds (Node ${process.version})`,
      `load average before ${loadBefore}, after ${load()} (${cpus().length} CPUs)`,
      row('codex-mmo tool-mcp validate --json', times.validate),
      row('codex-mmo tool-mcp list --json', times.list),
      row('codex mcp list --json', times.codex),
      verdict('validate/codex', ratios.validate),
      verdict('list/codex', ratios.list),
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(base, { recursive: true, force: true });
}
