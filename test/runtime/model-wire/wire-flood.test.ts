/**
 * The model wire under a flood of idle TCP connections, as a hostile shell with network opens
 * them: at most the cap of connections that sent no request with a process's token stay open,
 * each is closed when its time runs out, the flood is reported once, and a Codex process's
 * request is served during the flood, its streamed answer never cut however long it takes.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { stringify } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { WIRE_TOKEN_ENV, WIRE_TOKEN_HEADER } from '../../../src/config/compile/provider-route.js';
import type { ProfileData, ResolvedPlan } from '../../../src/config/profile/types.js';
import type { ListenerFlood } from '../../../src/foundation/process/connection-limits.js';
import { ModelWire } from '../../../src/runtime/model-wire/model-wire.js';
import { flood, sleep } from '../../support/flood.js';
import { waitFor } from '../../support/world.js';

const PROFILE = {
  schema_version: 8,
  name: 'flood',
  root: 'lead',
  agents: { lead: { name: 'lead', instructions: 'ROLE-LEAD', spawn: [], control: [] } },
} as unknown as ProfileData;
const PLAN = {
  profile: 'flood',
  root: 'lead',
  roles: { lead: { name: 'lead', grants: {} } },
  processes: [{ root: 'lead', roles: ['lead'], servers: [], mesh: false }],
  servers: {},
} as unknown as ResolvedPlan;
const CAP = 16;
const TIMEOUT_MS = 200;
/** Events the upstream streams, one every 100 ms: the answer outlasts the time to authenticate. */
const EVENTS = 8;

let upstream: Server;
let base: Record<string, unknown>;
const floods: ListenerFlood[] = [];

interface Wired {
  readonly wire: ModelWire;
  /** The root process's URL on the wire, and its token. */
  readonly url: string;
  readonly token: string;
}

async function wireWith(authTimeoutMs: number): Promise<Wired> {
  const wire = await ModelWire.start({
    profile: PROFILE,
    plan: PLAN,
    base,
    limits: { maxPending: CAP, authTimeoutMs, onFlood: (f) => floods.push(f) },
  });
  const wired = wire.home(
    { process: 'lead', files: new Map([['config.toml', stringify({ ...base })]]) },
    'root',
  );
  const config = wired.home.files.get('config.toml') ?? '';
  const url = /http:\/\/127\.0\.0\.1:\d+\/p\/[0-9a-f]{32}/.exec(config)?.[0];
  if (url === undefined) throw new Error(`no wire URL in ${config}`);
  return { wire, url, token: wired.env[WIRE_TOKEN_ENV] ?? '' };
}

/** A streamed `/responses` request through the wire: its status and every byte of the answer. */
function respond(wired: Wired): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${wired.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [WIRE_TOKEN_HEADER]: wired.token },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'gpt-5', input: [], tools: [] }));
  });
}

let capped: Wired;
let timed: Wired;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const tick = setInterval(() => {
        sent += 1;
        res.write(`event: tick\ndata: {"n":${String(sent)}}\n\n`);
        if (sent === EVENTS) {
          clearInterval(tick);
          res.end();
        }
      }, 100);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  base = {
    model: 'gpt-5',
    openai_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
  };
  capped = await wireWith(60_000);
  timed = await wireWith(TIMEOUT_MS);
});

afterAll(async () => {
  await capped.wire.close();
  await timed.wire.close();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('the model wire under a flood of idle connections', () => {
  it('keeps at most the cap open and serves a Codex process during the flood', async () => {
    const port = Number(new URL(capped.url).port);
    const idle = flood(port);
    await idle.more(300);
    await waitFor(() => idle.closed() >= 300 - CAP, 5_000);
    expect(idle.open()).toBe(CAP);
    expect(floods.map((f) => [f.listener, f.limit])).toEqual([['model-wire', CAP]]);
    const keepFlooding = setInterval(() => {
      void idle.more(20);
    }, 10);
    try {
      const answer = await respond(capped);
      expect(answer.status).toBe(200);
      expect(answer.body.match(/event: tick/g)).toHaveLength(EVENTS);
    } finally {
      clearInterval(keepFlooding);
    }
    await sleep(100);
    expect(idle.open()).toBeLessThanOrEqual(CAP);
    expect(floods).toHaveLength(1);
    idle.end();
  });

  it('closes idle connections in time and never cuts a streamed answer that outlasts it', async () => {
    const port = Number(new URL(timed.url).port);
    const idle = flood(port);
    await idle.more(10);
    const answer = respond(timed);
    await waitFor(() => idle.closed() === 10, 2_000);
    expect(idle.open()).toBe(0);
    const done = await answer;
    expect(done.status).toBe(200);
    expect(done.body.match(/event: tick/g)).toHaveLength(EVENTS);
    idle.end();
  });
});
