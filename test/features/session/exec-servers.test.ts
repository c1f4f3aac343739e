/**
 * `codex-mmo exec` against real servers that fail or authenticate: a required server that cannot
 * start fails the session with a clear message, a non-required one does not; a Streamable HTTP
 * server of our own sees the bearer token and `env_http_headers` values from credentials.env; a
 * server that cannot start is told in its own words (masked stderr, or URL and connection error)
 * on exec's stderr, in `session logs` and in the session's events.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startHttpMcpServer, type HttpMcpServer } from '../../support/http-mcp-server.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  allText,
  echoServer,
  profileToml,
  runInWorld,
  webServer,
  type GrantOptions,
} from '../../support/world.js';

const TOKEN_CANARY = 'web-token-canary-4d4d';
const BROKEN_KEY_CANARY = 'broken-key-canary-6f6f';
/** What the failing fixture writes to stderr before it exits. */
const OWN_WORDS = 'None of the specified directories are accessible';
const WORKSPACE_CANARY = 'workspace-canary-5e5e';

/** A Streamable HTTP server that is not there: a port nothing listens on. */
let STOPPED_URL: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

let http: HttpMcpServer;

beforeAll(async () => {
  STOPPED_URL = `http://127.0.0.1:${String(await freePort())}/mcp`;
  http = await startHttpMcpServer();
});

afterAll(async () => {
  await http.close();
});

const scripted = useScriptedSession(
  {
    registry: () =>
      echoServer('broken', { args: ['--fail'] }) +
      echoServer('keyed-broken', {
        args: ['--fail', '--secret-env', 'BROKEN_KEY'],
        envVars: ['BROKEN_KEY'],
      }) +
      webServer('web', http.url, { 'X-Client': 'codex-mmo-test' }) +
      webServer('stopped-web', STOPPED_URL),
    profile: profileToml('unused', 'x', { x: {} }),
    credentials: `WEB_TOKEN=${TOKEN_CANARY}\nWEB_WORKSPACE=${WORKSPACE_CANARY}\nBROKEN_KEY=${BROKEN_KEY_CANARY}\n`,
  },
  (request) => {
    const web = request.offeredTools.mcp.web;
    if (web !== undefined && !request.hasToolOutput) {
      return [
        { type: 'function_call', namespace: 'mcp__web', name: 'note', arguments: { text: 'hi' } },
      ];
    }
    return [{ type: 'message', text: `MAIN-DONE ${request.toolOutputs.at(-1)?.output ?? ''}` }];
  },
);

/** A pack whose one role, `main`, is granted `server`. */
async function pack(name: string, server: string, grant: GrantOptions = {}): Promise<string> {
  const dir = join(scripted.world.root, `pack-${name}`);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'profile.toml'),
    `schema_version = 8\n${profileToml(name, 'main', { main: { grants: { [server]: grant } } })}`,
  );
  return dir;
}

async function sessionRecord(output: string): Promise<Record<string, unknown>> {
  const id = /session (\d{8}T\d{9}Z-[0-9a-f]{8})/.exec(output)?.[1];
  if (id === undefined) throw new Error(`no session id in: ${output}`);
  const shown = await runInWorld(scripted.world, ['session', 'show', id, '--json']);
  return JSON.parse(shown.stdout) as Record<string, unknown>;
}

describe('exec: server startup policy', () => {
  it('fails the session with a clear message when a required server cannot start', async () => {
    const dir = await pack('needs-broken', 'broken', { required: true });
    const result = await runInWorld(scripted.world, ['exec', dir, 'go']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/required MCP servers failed to initialize: broken/);
    expect(result.stderr).toMatch(/codex-mmo: session \S+ failed: .*broken/);
    const record = await sessionRecord(result.stderr);
    expect(record).toMatchObject({ status: 'failed', exit_code: 1 });
    expect(String(record.error)).toContain('broken');
  }, 60_000);

  it('goes on when a server that is not required cannot start', async () => {
    const dir = await pack('optional-broken', 'broken', { required: false });
    const result = await runInWorld(scripted.world, ['exec', dir, 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('MAIN-DONE');
    expect(await sessionRecord(result.stderr)).toMatchObject({ status: 'ended', exit_code: 0 });
  }, 60_000);
});

describe("exec: a server's own start-up failure", () => {
  it("puts a stdio server's last stderr lines, masked, in exec's stderr, session logs and the session's files", async () => {
    const dir = await pack('needs-keyed-broken', 'keyed-broken', { required: true });
    const result = await runInWorld(scripted.world, ['exec', dir, 'go']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /error\[server-start-failed\].*server 'keyed-broken' could not start: .*its stderr ended with: .*None of the specified directories are accessible \(key \*+\) \| echo-server: failing on purpose/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at .*\.js:\d+/);
    // said once per line: the diagnostic, the root's end and the session's end
    expect(result.stderr.split('failing on purpose')).toHaveLength(4);
    const id = /session (\S+) \(profile/.exec(result.stderr)?.[1] ?? '';
    const logs = await runInWorld(scripted.world, ['session', 'logs', id]);
    expect(logs.stdout).toMatch(
      /root \(main\) server keyed-broken failed to start: .*None of the specified directories are accessible/,
    );
    // the session's record says it too, after Codex's own wording
    expect(result.stderr).toMatch(
      /session \S+ failed: required MCP servers failed to initialize: keyed-broken.*; server 'keyed-broken' could not start: .*None of the specified directories are accessible/,
    );
    const events = await readFile(
      join(scripted.world.stateDir, 'sessions', id, 'events.jsonl'),
      'utf8',
    );
    expect(events).toContain('"type":"server.failed"');
    expect(events).toContain(OWN_WORDS);
    const everything = [
      result.stdout,
      result.stderr,
      logs.stdout,
      await allText(join(scripted.world.stateDir, 'sessions', id)),
    ].join('\n');
    expect(everything).not.toContain(BROKEN_KEY_CANARY);
  }, 60_000);

  it("warns with the server's words when a server that is not required cannot start", async () => {
    const dir = await pack('optional-keyed-broken', 'keyed-broken', { required: false });
    const result = await runInWorld(scripted.world, ['exec', dir, 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /warning\[server-start-failed\].*keyed-broken.*None of the specified directories are accessible/,
    );
    expect(result.stderr).not.toContain(BROKEN_KEY_CANARY);
  }, 60_000);

  it('names the URL and the connection error of an HTTP server that is not there', async () => {
    const dir = await pack('needs-stopped-web', 'stopped-web', { required: true });
    const result = await runInWorld(scripted.world, ['exec', dir, 'go']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`server 'stopped-web' at ${STOPPED_URL} could not start`);
    expect(result.stderr).toMatch(/server-start-failed.*ECONNREFUSED/);
    const id = /session (\S+) \(profile/.exec(result.stderr)?.[1] ?? '';
    const logs = await runInWorld(scripted.world, ['session', 'logs', id]);
    expect(logs.stdout).toContain(`server stopped-web failed to start: ${STOPPED_URL}: `);
    expect(result.stderr + logs.stdout).not.toContain(TOKEN_CANARY);
  }, 60_000);
});

describe('exec: streamable HTTP authentication', () => {
  it('sends the bearer token and env_http_headers values from credentials.env', async () => {
    const dir = await pack('web-user', 'web');
    const result = await runInWorld(scripted.world, ['exec', dir, 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(http.calls).toEqual(['hi']);
    expect(result.stdout).toContain('noted: hi');
    const posts = http.requests.filter((h) => h['content-type']?.includes('json'));
    expect(posts.length).toBeGreaterThan(0);
    for (const headers of posts) {
      expect(headers.authorization).toBe(`Bearer ${TOKEN_CANARY}`);
      expect(headers['x-workspace']).toBe(WORKSPACE_CANARY);
      expect(headers['x-client']).toBe('codex-mmo-test');
    }
    expect(result.stderr).not.toContain(TOKEN_CANARY);
  }, 60_000);
});
