// Gateway benchmark, against real MCP servers (the echo-server fixture over stdio) and, for the
// session figure, real Codex with a scripted local model (no network, no API key).
// 1. Added latency of one `tools/call` through the gateway (MCP client → the gateway's loopback
//    Streamable HTTP endpoint, as Codex reaches it in a session → server and back) versus a
//    direct stdio connection to the same server, with the MCP SDK's HTTP client (fetch and web
//    streams) and with a lean node:http client, which is closer to Codex's native one. Goal:
//    under 2 ms median.
// 2. Server start-up to a first `tools/list` answer, direct versus through the gateway (what
//    Codex waits for before a required server counts as ready).
// 3. With BENCH_BASELINE_CLI=<dist/cli/main.js of a build without the gateway> (the same tree
//    with the gateway bypassed: `bench/build-without-gateway.sh` prints its path): wall time of
//    `codex-mmo exec` of a profile with one required server, this build versus that one, in
//    alternating rounds. Goal: no more than 10 % slower. Report the load average with it.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { stringify } from 'smol-toml';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => join(root, 'dist', path);
const { GatewayHub } = await import(dist('runtime/gateway/gateway-hub.js'));
const { credentialSourceFrom } = await import(dist('config/registry/credentials.js'));
const { startScriptedModel, scriptedProviderConfig } = await import(
  dist('runtime/codex/scripted-model.js')
);

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const STARTS = Number(process.env.BENCH_STARTS ?? 10);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 6);
const cli = dist('cli/main.js');
const echoServer = join(root, 'test', 'fixtures', 'servers', 'echo-server.mjs');
// a relative path is taken from where the bench was started, whatever directory it runs Codex in
const codexBin = resolve(
  process.env.BENCH_CODEX_BIN ?? join(root, 'node_modules', '.bin', 'codex'),
);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (v) => `${v.toFixed(3)} ms`;

const work = mkdtempSync(join(tmpdir(), 'codex-mmo-bench-gw-'));
const credentials = credentialSourceFrom({ BENCH_CRED: 'bench-secret-value-1234' }, {}, '-', true);
const definition = {
  id: 'echo',
  transport: 'stdio',
  command: process.execPath,
  args: [echoServer, '--tools', 'echo'],
  env_vars: ['BENCH_CRED'],
  enabled_tools: ['echo'],
  default_tools_approval_mode: 'approve',
};
const hub = await GatewayHub.start({
  transport: 'http',
  socketPath: join(work, 'gateway.sock'),
  callsFile: join(work, 'calls.jsonl'),
  secrets: credentials.secretValues(),
});
const route = () =>
  hub.addRoute({
    process: 'root',
    role: 'bench',
    server: 'echo',
    definition,
    gate: { allowed: new Set(['echo']) },
    launch: { env: { PATH: process.env.PATH, HOME: work }, home: work, cwd: work, credentials },
  });

async function connect(viaGateway) {
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  const transport = viaGateway
    ? new StreamableHTTPClientTransport(new URL(hub.url), {
        requestInit: { headers: { authorization: `Bearer ${route()}` } },
      })
    : new StdioClientTransport({
        command: process.execPath,
        args: definition.args,
        env: { PATH: process.env.PATH, BENCH_CRED: 'bench-secret-value-1234' },
        stderr: 'ignore',
      });
  const started = performance.now();
  await client.connect(transport);
  await client.listTools();
  return { client, readyMs: performance.now() - started };
}

async function callLatencies(viaGateway) {
  const { client } = await connect(viaGateway);
  const times = [];
  for (let i = 0; i < CALLS + 20; i++) {
    const t = performance.now();
    await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
    if (i >= 20) times.push(performance.now() - t);
  }
  await client.close();
  return times;
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
/**
 * Call latencies through the gateway with a lean HTTP client (node:http, one kept-alive
 * connection, the answer read as text), closer to Codex's own native client than the SDK's.
 */
async function rawLatencies() {
  const token = route();
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body, session) =>
    new Promise((resolve, reject) => {
      const req = request(hub.url, {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session !== undefined ? { 'mcp-session-id': session } : {}),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ session: res.headers['mcp-session-id'], text }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const init = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'b', version: '1' },
    },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.session);
  const times = [];
  for (let i = 0; i < CALLS + 20; i++) {
    const t = performance.now();
    const body = { name: 'echo', arguments: { text: `call ${i}` } };
    await post({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: body }, init.session);
    if (i >= 20) times.push(performance.now() - t);
  }
  agent.destroy();
  return times;
}

const direct = await callLatencies(false);
const gateway = await callLatencies(true);
const raw = await rawLatencies();
const added = median(gateway) - median(direct);
const addedRaw = median(raw) - median(direct);
console.log(`1. tools/call over ${CALLS} calls`);
console.log(
  `   direct (SDK stdio client) median ${fmt(median(direct))}; through the gateway with the SDK's HTTP client ${fmt(median(gateway))}, with a lean HTTP client ${fmt(median(raw))}`,
);
console.log(
  `   added latency (median): ${fmt(addedRaw)} with the lean client, ${fmt(added)} with the SDK's  goal < 2 ms: ${addedRaw < 2 ? 'met' : 'NOT met'}`,
);

const readyDirect = [];
const readyGateway = [];
for (let i = 0; i < STARTS; i++) {
  for (const [via, list] of i % 2 === 0
    ? [
        [false, readyDirect],
        [true, readyGateway],
      ]
    : [
        [true, readyGateway],
        [false, readyDirect],
      ]) {
    const { client, readyMs } = await connect(via);
    list.push(readyMs);
    await client.close();
  }
}
console.log(`2. server start to first tools/list answer, ${STARTS} rounds`);
console.log(
  `   direct median ${fmt(median(readyDirect))}, through the gateway ${fmt(median(readyGateway))} (+${fmt(median(readyGateway) - median(readyDirect))})`,
);
await hub.close();

const baseline = process.env.BENCH_BASELINE_CLI;
if (baseline !== undefined) {
  const model = await startScriptedModel(() => [{ type: 'message', text: 'done' }]);
  const w = join(work, 'world');
  const dirs = ['config/tool-mcp.d', 'data', 'state', 'home', 'codex', 'pack', 'cwd'];
  for (const d of dirs) mkdirSync(join(w, d), { recursive: true });
  writeFileSync(
    join(w, 'config/tool-mcp.d/10-bench.toml'),
    `schema_version = 8\n${stringify({ tool_mcp_servers: { echo: { ...definition, id: undefined } } })}`,
  );
  writeFileSync(join(w, 'config/credentials.env'), 'BENCH_CRED=bench-secret-value-1234\n');
  chmodSync(join(w, 'config/credentials.env'), 0o600);
  writeFileSync(
    join(w, 'config/codex-base.toml'),
    stringify(scriptedProviderConfig(model.baseUrl)),
  );
  writeFileSync(
    join(w, 'pack/profile.toml'),
    'schema_version = 8\nname = "bench"\nroot = "main"\n[agents.main]\ndescription = "d"\ninstructions = "i"\n[agents.main.tool_mcp_servers.echo]\nrequired = true\n',
  );
  const args = (entry) => [
    entry,
    'exec',
    join(w, 'pack'),
    'hi',
    '--config-dir',
    join(w, 'config'),
    '--data-dir',
    join(w, 'data'),
    '--state-dir',
    join(w, 'state'),
    '--codex-bin',
    codexBin,
  ];
  const env = { PATH: process.env.PATH, HOME: join(w, 'home'), CODEX_HOME: join(w, 'codex') };
  const runOnce = (entry) =>
    new Promise((resolve, reject) => {
      const t = performance.now();
      const child = spawn(process.execPath, args(entry), {
        env,
        stdio: 'ignore',
        cwd: join(w, 'cwd'),
      });
      child.on('close', (code) =>
        code === 0 ? resolve(performance.now() - t) : reject(new Error(`exit ${code}`)),
      );
    });
  await runOnce(cli);
  await runOnce(baseline);
  const mine = [];
  const theirs = [];
  for (let i = 0; i < SESSIONS; i++) {
    if (i % 2 === 0) {
      mine.push(await runOnce(cli));
      theirs.push(await runOnce(baseline));
    } else {
      theirs.push(await runOnce(baseline));
      mine.push(await runOnce(cli));
    }
  }
  await model.close();
  const ratio = median(mine) / median(theirs) - 1;
  console.log(`3. codex-mmo exec with one required server, ${SESSIONS} rounds`);
  console.log(
    `   without the gateway median ${fmt(median(theirs))}, with ${fmt(median(mine))} (${(ratio * 100).toFixed(1)} %)  goal <= 10 %: ${ratio <= 0.1 ? 'met' : 'NOT met'}`,
  );
}
rmSync(work, { recursive: true, force: true });
