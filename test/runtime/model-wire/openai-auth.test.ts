/**
 * The built-in `openai` provider behind the model wire, with real Codex and fake `auth.json`
 * files (an API key, a ChatGPT login): Codex sends its credentials over HTTP to the wire, which
 * passes them through untouched to the upstream (`openai_base_url`, here a local recorder), with
 * no websocket attempt and an uncompressed, narrowed body. A request reaches the wire only with
 * its process's token, which never travels on.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { responseEvents } from '../../../src/runtime/codex/scripted-model.js';
import { ModelWire } from '../../../src/runtime/model-wire/model-wire.js';
import { WIRE_TOKEN_ENV, WIRE_TOKEN_HEADER } from '../../../src/config/compile/provider-route.js';
import type { ProfileData, ResolvedPlan } from '../../../src/config/profile/types.js';
import { TEST_CODEX_BIN } from '../../support/codex-bin.js';
import { tmpDir } from '../../support/tmp.js';

const PROFILE = {
  schema_version: 8,
  name: 'auth',
  root: 'lead',
  agents: { lead: { name: 'lead', instructions: 'ROLE-LEAD', spawn: [], control: [] } },
} as unknown as ProfileData;
const PLAN = {
  profile: 'auth',
  root: 'lead',
  roles: { lead: { name: 'lead', grants: {} } },
  processes: [{ root: 'lead', roles: ['lead'], servers: [], mesh: false }],
  servers: {},
} as unknown as ResolvedPlan;

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly upgrade: boolean;
  readonly json: boolean;
}

async function runWith(auth: Record<string, unknown>): Promise<{ seen: Seen[]; code: number }> {
  const seen: Seen[] = [];
  const upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let json = true;
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        json = false;
      }
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        upgrade: false,
        json,
      });
      if (req.method === 'POST' && (req.url ?? '').endsWith('/responses')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const e of responseEvents('r', [{ type: 'message', text: 'AUTH-DONE' }])) {
          res.write(`event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`);
        }
        res.end();
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{}');
      }
    });
  });
  upstream.on('upgrade', (req, socket) => {
    seen.push({
      method: 'GET',
      url: req.url ?? '',
      headers: req.headers,
      upgrade: true,
      json: false,
    });
    socket.destroy();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const base = {
    model: 'gpt-5',
    openai_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    features: { apps: false },
  };
  const wire = await ModelWire.start({ profile: PROFILE, plan: PLAN, base });
  const root = await tmpDir();
  const home = join(root, 'home');
  await mkdir(home);
  const wired = wire.home(
    {
      process: 'lead',
      files: new Map([
        ['config.toml', stringify({ ...base, developer_instructions: 'ROLE-LEAD' })],
      ]),
    },
    'root',
  );
  for (const [path, text] of wired.home.files) await writeFile(join(home, path), text);
  await writeFile(join(home, 'auth.json'), JSON.stringify(auth), { mode: 0o600 });
  const code = await new Promise<number>((resolve) => {
    execFile(
      TEST_CODEX_BIN,
      ['exec', '--skip-git-repo-check', '--ephemeral', 'hi'],
      {
        cwd: root,
        env: { PATH: process.env.PATH, HOME: root, CODEX_HOME: home, ...wired.env },
        timeout: 60_000,
      },
      (error) => {
        resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : -1);
      },
    ).stdin?.end();
  });
  await wire.close();
  upstream.close();
  return { seen, code };
}

const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
const JWT = `${b64({ alg: 'none' })}.${b64({ exp: 4102444800, 'https://api.openai.com/auth': { chatgpt_account_id: 'acct-test', chatgpt_plan_type: 'plus' } })}.sig`;

describe('the built-in openai provider behind the model wire', () => {
  it('passes an API key through, over HTTP', async () => {
    const key = 'sk-test-wire-key-not-real';
    const { seen, code } = await runWith({ OPENAI_API_KEY: key, tokens: null, last_refresh: null });
    expect(code).toBe(0);
    const posts = seen.filter((s) => s.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((s) => s.headers.authorization === `Bearer ${key}` && s.json)).toBe(true);
    expect(seen.filter((s) => s.upgrade)).toEqual([]);
    // the process's wire token stays between Codex and the wire
    expect(seen.filter((s) => s.headers[WIRE_TOKEN_HEADER] !== undefined)).toEqual([]);
  }, 90_000);

  it('answers a request by its path alone as an unknown process, and forwards none', async () => {
    let reached = 0;
    const upstream = createServer((_req, res) => {
      reached += 1;
      res.writeHead(200).end('{}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = {
      model: 'gpt-5',
      openai_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    };
    const wire = await ModelWire.start({ profile: PROFILE, plan: PLAN, base });
    const wired = wire.home(
      { process: 'lead', files: new Map([['config.toml', stringify(base)]]) },
      'root',
    );
    const config = parse(wired.home.files.get('config.toml') ?? '') as {
      model_providers: Record<string, { base_url: string; env_http_headers: object }>;
    };
    const provider = config.model_providers.codex_mmo_openai;
    expect(provider?.env_http_headers).toEqual({ [WIRE_TOKEN_HEADER]: WIRE_TOKEN_ENV });
    const token = wired.env[WIRE_TOKEN_ENV] ?? '';
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(wired.home.files.get('config.toml')).not.toContain(token);
    const get = (headers: Record<string, string>) =>
      fetch(`${provider?.base_url ?? ''}/models`, { headers }).then((r) => r.status);
    expect(await get({})).toBe(404);
    expect(await get({ [WIRE_TOKEN_HEADER]: token.replace(/.$/, 'x') })).toBe(404);
    expect(reached).toBe(0);
    expect(await get({ [WIRE_TOKEN_HEADER]: token })).toBe(200);
    expect(reached).toBe(1);
    await wire.close();
    upstream.close();
  });

  it('passes a ChatGPT login through, uncompressed, over HTTP', async () => {
    const { seen, code } = await runWith({
      auth_mode: 'chatgpt',
      OPENAI_API_KEY: null,
      tokens: {
        id_token: JWT,
        access_token: JWT,
        refresh_token: 'rt-test',
        account_id: 'acct-test',
      },
      last_refresh: new Date().toISOString(),
    });
    expect(code).toBe(0);
    const posts = seen.filter((s) => s.method === 'POST' && s.url.endsWith('/responses'));
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) {
      expect(post.headers.authorization === `Bearer ${JWT}`).toBe(true);
      expect(post.headers['chatgpt-account-id']).toBe('acct-test');
      expect(post.headers['content-encoding']).toBeUndefined();
      expect(post.json).toBe(true);
    }
    expect(seen.filter((s) => s.upgrade)).toEqual([]);
  }, 90_000);
});
