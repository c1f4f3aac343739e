/**
 * The model wire reads the provider's event stream even when the provider compresses it anyway:
 * a gzip, deflate or Brotli answer is decoded, rewritten (a command's approval reason names who
 * asks) and passed on plain; an answer in an encoding the wire cannot read is refused, never
 * passed on unread.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

import { stringify } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { WIRE_TOKEN_ENV, WIRE_TOKEN_HEADER } from '../../../src/config/compile/provider-route.js';
import type { ProfileData, ResolvedPlan } from '../../../src/config/profile/types.js';
import { ModelWire } from '../../../src/runtime/model-wire/model-wire.js';

const PROFILE = {
  schema_version: 8,
  name: 'compressed',
  root: 'lead',
  agents: { lead: { name: 'lead', instructions: 'ROLE-LEAD', spawn: [], control: [] } },
} as unknown as ProfileData;
const PLAN = {
  profile: 'compressed',
  root: 'lead',
  roles: { lead: { name: 'lead', grants: {} } },
  processes: [{ root: 'lead', roles: ['lead'], servers: [], mesh: false }],
  servers: {},
} as unknown as ResolvedPlan;

const EVENT = {
  type: 'response.output_item.done',
  item: {
    type: 'function_call',
    call_id: 'c1',
    name: 'exec_command',
    arguments: '{"cmd":"make","sandbox_permissions":"require_escalated","justification":"go"}',
  },
};
const STREAM = Buffer.from(`event: ${EVENT.type}\ndata: ${JSON.stringify(EVENT)}\n\n`);
const ENCODE: Record<string, (b: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
  compress: (b) => b,
};

let upstream: Server;
let wire: ModelWire;
let url = '';
let token = '';

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    const encoding = new URL(req.url ?? '/', 'http://x').searchParams.get('enc') ?? 'gzip';
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': encoding });
      res.end(ENCODE[encoding]?.(STREAM));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = {
    model: 'gpt-5',
    openai_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
  };
  wire = await ModelWire.start({ profile: PROFILE, plan: PLAN, base });
  const wired = wire.home(
    { process: 'lead', files: new Map([['config.toml', stringify({ ...base })]]) },
    'root',
  );
  url =
    /http:\/\/127\.0\.0\.1:\d+\/p\/[0-9a-f]{32}/.exec(
      wired.home.files.get('config.toml') ?? '',
    )?.[0] ?? '';
  token = wired.env[WIRE_TOKEN_ENV] ?? '';
});

afterAll(async () => {
  await wire.close();
  await new Promise((resolve) => upstream.close(resolve));
});

function respond(
  encoding: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/responses?enc=${encoding}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [WIRE_TOKEN_HEADER]: token },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'gpt-5', input: [], tools: [] }));
  });
}

describe('compressed answers through the model wire', () => {
  it('decodes gzip, deflate and Brotli, and rewrites what they carry', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const answer = await respond(encoding);
      expect(answer.status, encoding).toBe(200);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.body).toContain('asks: go');
      expect(answer.body).toContain('event: response.output_item.done');
    }
  });

  it('refuses an answer in an encoding it cannot read', async () => {
    // `constructor` is a name every plain object answers to: no decoder is taken from there
    for (const encoding of ['compress', 'constructor']) {
      const answer = await respond(encoding);
      expect(answer.status).toBe(502);
      expect(answer.body).toContain(`the provider's answer is ${encoding}-encoded`);
      expect(answer.body).not.toContain('exec_command');
    }
  });

  it('refuses a request in an encoding it cannot read', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${url}/responses`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'constructor',
          [WIRE_TOKEN_HEADER]: token,
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('a constructor-compressed request cannot be read');
  });
});
