#!/usr/bin/env node
/**
 * What opening a server costs in each order the upstream client can ask: `initialize` first (a
 * 2025 client) or `server/discover` first (a 2026 client), against a server of the 2025 SDK, an
 * SDK v2 server of both eras and one of 2026-07-28 only, over stdio: the time from spawn to the
 * first `tools/list` answer, and the requests the server received (median of N runs).
 * Usage: `npm run bench:revisions [-- --runs N]`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

import { openUpstream } from '../dist/runtime/upstream/upstream.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 15;
const SDK2 = resolve('test/fixtures/servers/sdk2-server.mjs');
const ECHO = resolve('test/fixtures/servers/echo-server.mjs');
const KINDS = {
  '2025 SDK': (log) => [ECHO, '--tools', 'note', '--log-methods', log],
  'SDK v2, both eras': (log) => [SDK2, '--tools', 'note', '--log-methods', log],
  'SDK v2, 2026-07-28 only': (log) => [
    SDK2,
    '--modern-only',
    '--tools',
    'note',
    '--log-methods',
    log,
  ],
};
const ORDERS = { 'initialize first': '2025-11-25', 'server/discover first': '2026-07-28' };

async function once(args, version) {
  const started = performance.now();
  const upstream = await openUpstream({
    transport: 'stdio',
    command: process.execPath,
    args,
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '' },
  });
  const waiting = new Map();
  upstream.transport.onmessage = (m) => waiting.get(m.id)?.(m);
  const ask = (message) =>
    new Promise((done) => {
      waiting.set(message.id, done);
      void upstream.transport.send(message);
    });
  const capabilities = {};
  const clientInfo = { name: 'bench', version: '1' };
  const opened = await ask({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities, clientInfo },
  });
  if (opened.result === undefined) throw new Error(JSON.stringify(opened.error));
  await upstream.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': clientInfo,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const listed = await ask({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/list',
    params: { _meta: meta },
  });
  const ms = performance.now() - started;
  await upstream.stop();
  if (listed.result === undefined) throw new Error(JSON.stringify(listed.error));
  return { ms, revision: upstream.revision() };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), 'bench-revisions-'));
try {
  process.stdout.write(`spawn to first tools/list answer, median of ${runs} (stdio)\n`);
  for (const [kind, argsOf] of Object.entries(KINDS)) {
    for (const [order, version] of Object.entries(ORDERS)) {
      const times = [];
      let revision = '';
      let requests = 0;
      for (let i = 0; i < runs; i++) {
        const log = join(dir, `${i}-${kind.length}-${version}.jsonl`);
        const result = await once(argsOf(log), version);
        times.push(result.ms);
        revision = result.revision;
        requests = readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l.includes('"method"')).length;
      }
      process.stdout.write(
        `  ${kind.padEnd(24)} ${order.padEnd(22)} ${median(times).toFixed(1).padStart(6)} ms  ` +
          `speaks ${revision}, ${String(requests)} requests\n`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
