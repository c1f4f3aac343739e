// Model-wire benchmark (no network, no API key): time to first byte of a streamed Responses
// answer, through the session's model wire versus straight to the provider. The provider is a
// local HTTP server that answers every POST /responses with an SSE stream whose first event is
// written at once; the request body is the size of a real Codex request (about 40 KB, with MCP
// namespaces the wire narrows). Arms alternate per round after warm-up; the median, p90 and the
// median of per-round differences are reported. Goal: wire overhead < 5 ms median.
import { request } from 'node:http';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parse } from 'smol-toml';

const root = fileURLToPath(new URL('..', import.meta.url));
const { ModelWire } = await import(join(root, 'dist', 'runtime', 'model-wire', 'model-wire.js'));

const ROUNDS = Number(process.env.ROUNDS ?? 300);
const WARMUP = 30;

const provider = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      'event: response.created\ndata: {"type":"response.created","response":{"id":"r"}}\n\n',
    );
    setTimeout(
      () => res.end('event: response.completed\ndata: {"type":"response.completed"}\n\n'),
      1,
    );
  });
});
await new Promise((resolve) => provider.listen(0, '127.0.0.1', resolve));
const upstream = `http://127.0.0.1:${provider.address().port}/v1`;

const profile = {
  schema_version: 8,
  name: 'bench',
  root: 'lead',
  agents: {
    lead: { name: 'lead', instructions: 'ROLE-LEAD', spawn: [], control: [], native_agents: [] },
  },
};
const plan = {
  profile: 'bench',
  root: 'lead',
  roles: { lead: { name: 'lead', grants: { alpha: { enabled_tools: ['t0', 't1'] } } } },
  processes: [{ root: 'lead', roles: ['lead'], servers: ['alpha', 'beta'], mesh: false }],
  servers: {},
};
const base = { model_provider: 'p', model_providers: { p: { name: 'p', base_url: upstream } } };
const wire = await ModelWire.start({ profile, plan, base });
const home = wire.home(
  {
    process: 'lead',
    files: new Map([
      [
        'config.toml',
        `model_provider = "p"\n[model_providers.p]\nname = "p"\nbase_url = "${upstream}"\n`,
      ],
    ]),
  },
  'root',
);
const wired = parse(home.files.get('config.toml')).model_providers.p.base_url;

const fn = (name, k) => ({
  type: 'function',
  name,
  description: `tool ${k} `.repeat(40),
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
});
const body = JSON.stringify({
  model: 'm',
  input: [
    {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: 'base prompt '.repeat(1500) }],
    },
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'ROLE-LEAD' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
  ],
  tools: [
    fn('exec_command', 0),
    {
      type: 'namespace',
      name: 'mcp__alpha',
      tools: Array.from({ length: 8 }, (_, k) => fn(`t${k}`, k)),
    },
    {
      type: 'namespace',
      name: 'mcp__beta',
      tools: Array.from({ length: 8 }, (_, k) => fn(`b${k}`, k)),
    },
  ],
  stream: true,
});
let thread = 0;

/** Milliseconds from sending the request to the first byte of the answer's body. */
function ttfb(baseUrl) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(`${baseUrl}/responses`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'thread-id': `thread-${thread++ % 4}`,
        authorization: 'Bearer not-a-real-key',
      },
    });
    req.on('response', (res) => {
      res.once('data', () => {
        resolve(Number(process.hrtime.bigint() - started) / 1e6);
        res.resume();
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

for (let i = 0; i < WARMUP; i++) {
  await ttfb(upstream);
  await ttfb(wired);
}
const direct = [];
const through = [];
const diffs = [];
for (let i = 0; i < ROUNDS; i++) {
  const order = i % 2 === 0 ? ['d', 'w'] : ['w', 'd'];
  const got = {};
  for (const arm of order) got[arm] = await ttfb(arm === 'd' ? upstream : wired);
  direct.push(got.d);
  through.push(got.w);
  diffs.push(got.w - got.d);
}
const f = (x) => x.toFixed(2);
console.log(
  `model wire: time to first byte, ${ROUNDS} rounds, body ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`  direct   median ${f(median(direct))} ms  p90 ${f(p90(direct))} ms`);
console.log(`  wire     median ${f(median(through))} ms  p90 ${f(p90(through))} ms`);
console.log(`  overhead median ${f(median(diffs))} ms  (goal < 5 ms)`);
await wire.close();
provider.close();
process.exit(median(diffs) < 5 ? 0 : 1);
