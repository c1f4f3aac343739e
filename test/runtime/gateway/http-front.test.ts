/**
 * The gateway's loopback Streamable HTTP front against a real MCP server (the echo-server
 * fixture), reached by an MCP SDK client standing where Codex stands: the granted tools only,
 * refused calls and exfiltration as through a relay; and every request that is not the route's
 * own refused and recorded — no token, another Host or Origin, another path, a token used by
 * another process, another route's session, a process whose routes were closed, a session that
 * is ending.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readCalls } from '../../../src/runtime/gateway/call-log.js';
import { GatewayHub } from '../../../src/runtime/gateway/gateway-hub.js';
import type { Route } from '../../../src/runtime/gateway/relay-connection.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import type { ServerDefinition } from '../../../src/config/registry/types.js';
import { connectWithToken, tryToken } from '../../support/stolen-token.js';
import { tmpDir } from '../../support/tmp.js';
import { ECHO_SERVER } from '../../support/world.js';

const CANARY = 'http-front-canary-3b8e';

let root: string;
let hub: GatewayHub;
let url: string;
const tokens: Record<string, string> = {};
const credentials = credentialSourceFrom(
  { ECHO_CRED: CANARY },
  {},
  '/nonexistent/credentials.env',
  true,
);

function route(process: string, server: string, allowed: string[], more: string[] = []): Route {
  const definition: ServerDefinition = {
    id: server,
    transport: 'stdio',
    command: globalThis.process.execPath,
    args: [ECHO_SERVER, '--tools', 'echo,write!,hidden', ...more],
    env_vars: ['ECHO_CRED'],
    enabled_tools: ['echo', 'write', 'hidden'],
    default_tools_approval_mode: 'approve',
  };
  return {
    process,
    role: `${process}-role`,
    server,
    definition,
    gate: { allowed: new Set(allowed) },
    launch: {
      env: { PATH: globalThis.process.env.PATH ?? '/usr/bin:/bin', HOME: root },
      home: root,
      cwd: root,
      credentials,
    },
  };
}

function connect(token: string): Promise<Client> {
  return connectWithToken(url, token);
}

/** A POST with the root's token and `host` as the Host header (which fetch does not let set). */
function withHost(host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { host, authorization: `Bearer ${tokens.a ?? ''}` },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
}

/** `tryToken` from a separate Node process: another process holding a stolen token. */
async function fromOtherProcess(token: string): Promise<number> {
  const child = spawn(process.execPath, ['-e', initializeScript(), '--', token], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return statusOf(child);
}

/** The status a child running `initializeScript` printed; its stderr when it printed none. */
async function statusOf(child: ReturnType<typeof spawn>): Promise<number> {
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const status = Number(out.trim());
  if (!Number.isInteger(status) || status === 0) {
    throw new Error(`the child printed no status (exit ${String(code)}): ${err}`);
  }
  return status;
}

/**
 * `tryToken` from a Node process started by a shell, as Codex is started in its container: the
 * shell is what the supervisor spawned, named to the gateway (`bindSpawned`) before the request.
 */
async function fromSpawnedTree(process_: string, token: string): Promise<number> {
  const child = spawn(
    '/bin/sh',
    ['-c', `sleep 0.3; "$0" -e "$1" -- "$2"; :`, process.execPath, initializeScript(), token],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (child.pid !== undefined) hub.bindSpawned(process_, child.pid);
  return statusOf(child);
}

function initializeScript(): string {
  return `fetch(${JSON.stringify(url)}, { method: 'POST', headers: { authorization: 'Bearer ' + process.argv[1], 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) }).then((r) => console.log(r.status))`;
}

beforeAll(async () => {
  root = await tmpDir('http-front');
  hub = await GatewayHub.start({
    transport: 'http',
    socketPath: join(root, 'unused.sock'),
    callsFile: join(root, 'calls.jsonl'),
    secrets: [CANARY],
  });
  url = hub.url ?? '';
  tokens.a = hub.addRoute(route('root', 'a', ['echo']));
  tokens.b = hub.addRoute(route('root', 'b', ['echo', 'write']));
  tokens.worker = hub.addRoute(route('worker', 'a', ['echo']));
  tokens.spawned = hub.addRoute(route('spawned', 'a', ['echo']));
  tokens.sleeper = hub.addRoute(route('sleeper', 'a', ['echo']));
  tokens.mortal = hub.addRoute(route('root', 'mortal', ['echo'], ['--exit-on', 'echo']));
});

afterAll(async () => {
  await hub.close();
});

describe('the gateway over loopback HTTP', () => {
  it('serves a route at a loopback URL and offers only its granted tools', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(tokens.a ?? '');
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(['echo']);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(JSON.stringify(echoed.content)).toContain('hi');
    const refused = await client.callTool({ name: 'write', arguments: { text: 'x' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('[tool-not-granted]');
    const leak = await client.callTool({
      name: 'echo',
      arguments: { text: Buffer.from(CANARY).toString('base64') },
    });
    expect(JSON.stringify(leak.content)).toContain('[credential-in-arguments]');
    await client.close();
  });

  it('refuses a request without a token, from another Host or Origin, or on another path', async () => {
    const plain = await tryToken(url, 'not-a-token-of-this-gateway-0000');
    expect(plain.status).toBe(401);
    const init = { method: 'POST', headers: { authorization: `Bearer ${tokens.a ?? ''}` } };
    expect(await withHost('evil.test')).toBe(403);
    expect(await withHost(new URL(url).host)).toBe(400);
    const origin = await fetch(url, {
      ...init,
      headers: { ...init.headers, origin: 'http://evil.test' },
    });
    expect(origin.status).toBe(403);
    const path = await fetch(url.replace('/mcp', '/other'), init);
    expect(path.status).toBe(404);
    const notInit = await fetch(url, {
      ...init,
      headers: { ...init.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(notInit.status).toBe(400);
  });

  it('refuses a token used by a process other than the one its routes are bound to', async () => {
    // this test process used the root's routes first: they are bound to it
    expect(await fromOtherProcess(tokens.b ?? '')).toBe(403);
    // the worker's routes are still unbound: the first process to use one binds them
    expect(await fromOtherProcess(tokens.worker ?? '')).toBe(200);
    expect((await tryToken(url, tokens.worker ?? '')).status).toBe(403);
  });

  it('admits only the process tree spawned for a process, even before its first use', async () => {
    // a process the supervisor spawned for `sleeper` that never connects: nobody else binds it
    const sleeper = spawn('/bin/sleep', ['30'], { stdio: 'ignore' });
    try {
      if (sleeper.pid !== undefined) hub.bindSpawned('sleeper', sleeper.pid);
      expect(await fromOtherProcess(tokens.sleeper ?? '')).toBe(403);
      expect((await tryToken(url, tokens.sleeper ?? '')).status).toBe(403);
    } finally {
      sleeper.kill();
    }
    // a descendant of what was spawned binds the routes, and the refused ones are recorded
    expect(await fromSpawnedTree('spawned', tokens.spawned ?? '')).toBe(200);
    expect((await tryToken(url, tokens.spawned ?? '')).status).toBe(403);
    await hub.flush();
    const { calls } = await readCalls(root);
    expect(
      calls.filter((c) => c.process === 'sleeper' && c.method === 'http:wrong-process'),
    ).toHaveLength(2);
  });

  it("refuses another route's session id", async () => {
    const client = await connect(tokens.a ?? '');
    const transport = client.transport as StreamableHTTPClientTransport;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.b ?? ''}`,
        'mcp-session-id': transport.sessionId ?? '',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    await client.close();
  });

  it('tells a request naming a session whose server went away apart from an unknown one', async () => {
    const post = (token: string, session: string): Promise<Response> =>
      fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'mcp-session-id': session,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' }),
      });
    // the server of a session goes away: the session ends with it
    const client = await connect(tokens.mortal ?? '');
    await client.listTools();
    const ended = (client.transport as StreamableHTTPClientTransport).sessionId ?? '';
    // the call ends the server: it is answered with the server's end, not left to time out
    const failed = await client.callTool({ name: 'echo', arguments: {} }).then(
      () => 'answered',
      (error: unknown) => String(error),
    );
    expect(failed).toContain("server 'mortal' ended");
    let answer = await post(tokens.mortal ?? '', ended);
    for (let waited = 0; answer.status !== 404 && waited < 5000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await post(tokens.mortal ?? '', ended);
    }
    expect(answer.status, await answer.clone().text()).toBe(404);
    expect(JSON.stringify(await answer.json())).toContain('[session-gone]');
    // a session its own client ended is not one whose server went away
    const own = await connect(tokens.a ?? '');
    const transport = own.transport as StreamableHTTPClientTransport;
    const deleted = transport.sessionId ?? '';
    await transport.terminateSession();
    await own.close();
    const again = await post(tokens.a ?? '', deleted);
    expect(again.status).toBe(404);
    expect(JSON.stringify(await again.json())).toContain('[unknown-session]');
    await hub.flush();
    const { calls } = await readCalls(root);
    expect(calls).toContainEqual(
      expect.objectContaining({
        method: 'http:session-gone',
        reason: 'server-gone',
        server: 'mortal',
      }),
    );
  });

  it('records every refusal with the route its token named', async () => {
    await hub.flush();
    const { calls } = await readCalls(root);
    const refused = calls.filter((c) => c.reason === 'not-authorized').map((c) => c.method);
    expect(refused).toEqual(
      expect.arrayContaining([
        'http:no-token',
        'http:bad-host',
        'http:bad-origin',
        'http:bad-path',
        'http:not-initialize',
        'http:wrong-process',
        'http:unknown-session',
      ]),
    );
    const wrong = calls.find((c) => c.method === 'http:wrong-process' && c.server === 'b');
    expect(wrong).toMatchObject({ process: 'root', role: 'root-role', outcome: 'blocked' });
    expect(JSON.stringify(calls)).not.toContain(tokens.a);
  });

  it("opens nothing once a process's routes are closed, or once the session is ending", async () => {
    await hub.closeProcess('worker');
    expect((await tryToken(url, tokens.worker ?? '')).status).toBe(401);
    // its last DELETE, as Codex exits, is answered without a record
    await hub.flush();
    const before = (await readCalls(root)).calls.length;
    const last = await fetch(url, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokens.worker ?? ''}`, 'mcp-session-id': 'gone' },
    });
    expect(last.status).toBe(404);
    await hub.flush();
    expect((await readCalls(root)).calls.length).toBe(before);
    hub.beginStop();
    const ending = await tryToken(url, tokens.a ?? '');
    expect(ending.status).toBe(503);
    expect(ending.body).toContain('[session-ended]');
  });
});
