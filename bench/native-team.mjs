// Native team benchmark, against real Codex and a scripted local model (no network, no API key):
// a root whose first answer spawns N native sub-agents at once (`spawn_agent`, alternating the
// roles `reader` and `writer`), each calling the one tool of its own grant and answering; the
// root waits until every sub-agent has answered, then ends. Run as `codex-mmo exec` (each role
// narrowed to its grant by the session's gateway and model wire) and as plain `codex exec` on a
// hand-written home with the same roles and server (where every sub-agent gets the root's
// servers: plain Codex cannot narrow a native role). Reports for each N: sub-agents spawned and
// refused (where Codex's thread limit binds), spawn latency p50/p95 (root's spawn answer to each
// sub-agent's first model request), the whole run, peak resident memory of the process tree,
// server processes at the peak, and teardown (root's last answer to the process's exit).
// BENCH_NATIVE_COUNTS (default 1,8,64), BENCH_MAX_THREADS (Codex's `[agents] max_threads`;
// default: Codex's own), BENCH_CODEX_BIN (the Codex launcher; default the installed `codex`),
// BENCH_PLAIN_DENY (set: plain Codex denies reads of the config and state dirs, as codex-mmo does).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { stringify } from 'smol-toml';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => join(root, 'dist', path);
const { startScriptedModel, scriptedProviderConfig } = await import(
  dist('runtime/codex/scripted-model.js')
);
const { descendants, treeResidentMb } = await import(dist('foundation/process/process-tree.js'));

const COUNTS = (process.env.BENCH_NATIVE_COUNTS ?? '1,8,64').split(',').map(Number);
const MAX_THREADS = process.env.BENCH_MAX_THREADS;
// a relative path is taken from where the bench was started, whatever directory it runs Codex in
const codexBin = resolve(
  process.env.BENCH_CODEX_BIN ?? join(root, 'node_modules', '.bin', 'codex'),
);
const cli = dist('cli/main.js');
const echoServer = join(root, 'test', 'fixtures', 'servers', 'echo-server.mjs');
const ROLES = ['reader', 'writer'];
const TOOL = { reader: 'read', writer: 'write' };

const quantile = (values, q) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (v) => (Number.isNaN(v) ? '-' : `${Math.round(v).toLocaleString('en')} ms`);

/** One run's state, fed by the scripted model. */
let state;
function newState(count) {
  let allDone;
  const done = new Promise((resolve) => (allDone = resolve));
  return {
    count,
    spawnedAt: 0,
    firstSeen: new Map(),
    answered: new Set(),
    offered: {},
    ok: 0,
    refused: 0,
    lastAnswer: 0,
    done,
    allDone,
    waiting: false,
  };
}

const roleOf = (request) =>
  ROLES.find((r) => request.developerTexts.some((t) => t.includes(`ROLE-${r.toUpperCase()}`)));

async function script(request) {
  const s = state;
  const role = request.parentThreadId === undefined ? 'root' : roleOf(request);
  if (role === 'root') {
    if (request.toolOutputs.length === 0) {
      s.spawnedAt = performance.now();
      return Array.from({ length: s.count }, (_, i) => ({
        type: 'function_call',
        namespace: 'multi_agent_v1',
        name: 'spawn_agent',
        arguments: { agent_type: ROLES[i % 2], message: `TASK-${i}` },
      }));
    }
    // every spawn's answer is in (counted once: later requests repeat them): count them, then
    // wait for the sub-agents that started
    if (!s.counted) {
      s.counted = true;
      for (const o of request.toolOutputs) {
        if (/agent_id/.test(o.output)) s.ok++;
        else s.refused++;
      }
      s.refusal = request.toolOutputs.find((o) => !/agent_id/.test(o.output))?.output;
    }
    if (s.answered.size < s.ok) {
      s.waiting = true;
      await s.done;
    }
    s.lastAnswer = performance.now();
    return [{ type: 'message', text: 'ROOT-DONE' }];
  }
  const key = request.threadId ?? `${role}-${request.index}`;
  if (!s.firstSeen.has(key)) s.firstSeen.set(key, performance.now() - s.spawnedAt);
  s.offered[role] = Object.entries(request.offeredTools.mcp)
    .map(([server, tools]) => `${server}:${tools.join('+')}`)
    .join(' ');
  if (request.toolOutputs.length === 0) {
    return [
      {
        type: 'function_call',
        namespace: 'mcp__notes',
        name: TOOL[role],
        arguments: { text: role },
      },
    ];
  }
  s.answered.add(key);
  if (s.waiting && s.answered.size >= s.ok) s.allDone();
  else if (s.answered.size >= s.count) s.allDone();
  return [{ type: 'message', text: `${role} done` }];
}

const model = await startScriptedModel((request) => script(request));
const work = mkdtempSync(
  join(process.env.BENCH_DIR ?? join(homedir(), '.cache'), 'codex-mmo-native-'),
);

function run(command, args, env, cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peak = 0;
    let servers = 0;
    const sample = () => {
      peak = Math.max(peak, treeResidentMb(process.pid));
      const running = descendants(process.pid).filter((pid) => {
        try {
          const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          // the server itself, not its container's `unshare`
          return cmdline.includes('echo-server.mjs') && !cmdline.includes('codex-mmo-container');
        } catch {
          return false;
        }
      });
      servers = Math.max(servers, running.length);
    };
    const timer = setInterval(sample, 250);
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      const ended = performance.now();
      if (code !== 0) reject(new Error(`${command} exited ${code}:\n${stderr.slice(-2000)}`));
      else resolve({ total: ended - started, ended, peak, servers });
    });
  });
}

try {
  const dirs = Object.fromEntries(
    ['config', 'data', 'state', 'pack', 'cwd', 'home', 'plain'].map((d) => [d, join(work, d)]),
  );
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  mkdirSync(join(dirs.config, 'tool-mcp.d'), { recursive: true });
  const server = { command: process.execPath, args: [echoServer, '--tools', 'read,write'] };
  writeFileSync(
    join(dirs.config, 'tool-mcp.d', '10-bench.toml'),
    `schema_version = 8\n[tool_mcp_servers.notes]\ntransport = "stdio"\ncommand = ${JSON.stringify(server.command)}\nargs = ${JSON.stringify(server.args)}\nenabled_tools = ["read", "write"]\ndefault_tools_approval_mode = "approve"\n`,
  );
  const agents = MAX_THREADS === undefined ? {} : { agents: { max_threads: Number(MAX_THREADS) } };
  writeFileSync(
    join(dirs.config, 'codex-base.toml'),
    stringify({ ...scriptedProviderConfig(model.baseUrl), ...agents }),
  );
  const role = (name, tools) =>
    `[agents.${name}]\ndescription = "${name}"\ninstructions = "ROLE-${name.toUpperCase()}"\n\n[agents.${name}.tool_mcp_servers.notes]\nenabled_tools = ${JSON.stringify(tools)}\n`;
  writeFileSync(
    join(dirs.pack, 'profile.toml'),
    `schema_version = 8\nname = "native"\nroot = "lead"\n\n[agents.lead]\ndescription = "lead"\ninstructions = "ROLE-LEAD"\nnative_agents = ["reader", "writer"]\n\n[agents.lead.tool_mcp_servers.notes]\nenabled_tools = ["read", "write"]\n\n${role('reader', ['read'])}\n${role('writer', ['write'])}`,
  );
  // plain Codex configured by hand: the same provider, server and roles
  mkdirSync(join(dirs.plain, 'agents'), { recursive: true });
  for (const name of ROLES) {
    writeFileSync(
      join(dirs.plain, 'agents', `${name}.toml`),
      stringify({ developer_instructions: `ROLE-${name.toUpperCase()}` }),
    );
  }
  writeFileSync(
    join(dirs.plain, 'config.toml'),
    stringify({
      ...scriptedProviderConfig(model.baseUrl),
      developer_instructions: 'ROLE-LEAD',
      // BENCH_PLAIN_DENY: plain Codex given the read boundary codex-mmo keeps in a process with
      // native roles (Codex's deny entries for the operator's directories)
      ...(process.env.BENCH_PLAIN_DENY !== undefined
        ? {
            default_permissions: 'plain_deny',
            permissions: {
              plain_deny: {
                extends: ':read-only',
                filesystem: { [dirs.config]: 'deny', [dirs.state]: 'deny' },
              },
            },
          }
        : {}),
      mcp_servers: { notes: { ...server, enabled_tools: ['read', 'write'] } },
      agents: {
        ...(MAX_THREADS === undefined ? {} : { max_threads: Number(MAX_THREADS) }),
        ...Object.fromEntries(
          ROLES.map((name) => [name, { description: name, config_file: `agents/${name}.toml` }]),
        ),
      },
    }),
  );
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dirs.home,
    CODEX_HOME: join(dirs.home, '.codex'),
  };
  const dirArgs = ['--config-dir', dirs.config, '--data-dir', dirs.data, '--state-dir', dirs.state];
  const arms = {
    'codex-mmo': () =>
      run(
        process.execPath,
        [cli, 'exec', dirs.pack, 'go', ...dirArgs, '--codex-bin', codexBin],
        env,
        dirs.cwd,
      ),
    plain: () => {
      const home = join(work, `plain-${Date.now()}`);
      mkdirSync(home);
      writeFileSync(join(home, 'config.toml'), readFileSync(join(dirs.plain, 'config.toml')));
      mkdirSync(join(home, 'agents'));
      for (const name of ROLES) {
        writeFileSync(
          join(home, 'agents', `${name}.toml`),
          readFileSync(join(dirs.plain, 'agents', `${name}.toml`)),
        );
      }
      return run(
        codexBin,
        ['exec', '--skip-git-repo-check', '--', 'go'],
        { ...env, CODEX_HOME: home },
        dirs.cwd,
      ).finally(() => rmSync(home, { recursive: true, force: true }));
    },
  };
  console.log(
    `native team: N sub-agents spawned at once in one Codex process (Codex ${codexBin}; [agents] max_threads ${MAX_THREADS ?? "Codex's default"}; load ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')})`,
  );
  console.log(
    '  arm        N  spawned refused  spawn p50  spawn p95      total  peak RSS  servers  teardown  offered',
  );
  for (const count of COUNTS) {
    for (const [name, arm] of Object.entries(arms)) {
      state = newState(count);
      const result = await arm();
      const latencies = [...state.firstSeen.values()];
      console.log(
        `  ${name.padEnd(9)} ${String(count).padStart(2)}  ${String(state.ok).padStart(7)} ${String(state.refused).padStart(7)}  ${ms(quantile(latencies, 0.5)).padStart(9)}  ${ms(quantile(latencies, 0.95)).padStart(9)}  ${ms(result.total).padStart(9)}  ${`${Math.round(result.peak)} MB`.padStart(8)}  ${String(result.servers).padStart(7)}  ${ms(result.ended - state.lastAnswer).padStart(8)}  ${ROLES.map((r) => `${r}=[${state.offered[r] ?? ''}]`).join(' ')}`,
      );
      if (state.refusal !== undefined)
        console.log(`    refused spawn: ${state.refusal.slice(0, 200)}`);
    }
  }
} finally {
  await model.close();
  rmSync(work, { recursive: true, force: true });
}
