/**
 * AppServerClient against real `codex app-server` and the scripted model: threads, turns,
 * approvals (policy and default decline), MCP server status, startup failures, timeouts and a
 * clean shutdown without orphaned MCP servers.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { stringify } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';

import {
  AppServerClient,
  AppServerRequestError,
  failedRequiredServers,
} from '../../../src/runtime/codex/app-server-client.js';
import type { ServerRequest } from '../../../src/runtime/codex/app-server-protocol.js';
import {
  scriptedProviderConfig,
  startScriptedModel,
  type ModelRequest,
  type ScriptHandler,
  type ScriptedModel,
} from '../../../src/runtime/codex/scripted-model.js';
import { ProcessError } from '../../../src/foundation/errors.js';
import { TEST_CODEX_BIN } from '../../support/codex-bin.js';
import { tmpDir } from '../../support/tmp.js';

const CODEX = TEST_CODEX_BIN;
const ECHO = resolve('test/fixtures/servers/echo-server.mjs');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((f) => f()));
});

async function setup(
  handler: ScriptHandler,
  servers: Record<string, Record<string, unknown>>,
): Promise<{ home: string; model: ScriptedModel }> {
  const home = await tmpDir();
  const model = await startScriptedModel(handler);
  cleanups.push(() => model.close());
  await writeFile(
    join(home, 'config.toml'),
    stringify({ ...scriptedProviderConfig(model.baseUrl), mcp_servers: servers }),
  );
  return { home, model };
}

async function startClient(
  home: string,
  approvals?: (r: ServerRequest) => 'accept' | 'decline',
): Promise<AppServerClient> {
  const client = await AppServerClient.start({
    codexBin: CODEX,
    codexHome: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    cwd: home,
    requestTimeoutMs: 30_000,
    ...(approvals !== undefined ? { approvals } : {}),
  });
  cleanups.push(() => client.close());
  return client;
}

/**
 * Host pids of the processes whose arguments include `arg`: a server in its session container
 * knows only its pid in the container's namespace, so its own pid file cannot be used from here.
 */
async function pidsWithArg(arg: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv.includes(arg)) found.push(Number(entry));
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Root calls mcp__echo.alpha, then mcp__echo.danger, then answers "finished". */
const twoCalls: ScriptHandler = (request: ModelRequest) => {
  const n = request.toolOutputs.length;
  if (n === 0) {
    return [
      { type: 'function_call', namespace: 'mcp__echo', name: 'alpha', arguments: { text: 'a' } },
    ];
  }
  if (n === 1) {
    return [
      { type: 'function_call', namespace: 'mcp__echo', name: 'danger', arguments: { text: 'd' } },
    ];
  }
  return [{ type: 'message', text: 'finished' }];
};

describe('AppServerClient with real codex app-server', () => {
  it('runs a turn, asks the approval policy, lists servers and leaves no process behind', async () => {
    const pidFile = join(await tmpDir(), 'echo.pid');
    const { home, model } = await setup(twoCalls, {
      echo: {
        command: process.execPath,
        args: [ECHO, '--tools', 'alpha,danger!,gamma', '--pid-file', pidFile],
        required: true,
        disabled_tools: ['gamma'],
        default_tools_approval_mode: 'prompt',
      },
      second: { command: process.execPath, args: [ECHO, '--tools', 'other'], required: false },
    });
    await mkdir(join(home, 'work'));
    const seen: ServerRequest[] = [];
    const client = await startClient(home, (request) => {
      seen.push(request);
      return String(request.params.message).includes('"alpha"') ? 'accept' : 'decline';
    });
    expect(client.initializeResponse.codexHome).toBe(home);

    const { thread } = await client.startThread({ cwd: join(home, 'work'), ephemeral: true });
    const startup = await client.waitForMcpStartup(thread.id, ['echo', 'second'], 20_000);
    expect(startup.echo?.status).toBe('ready');
    expect(startup.second?.status).toBe('ready');

    const statuses = await client.listMcpServerStatus({ threadId: thread.id });
    const tools = Object.fromEntries(statuses.map((s) => [s.name, Object.keys(s.tools).sort()]));
    expect(tools).toEqual({ echo: ['alpha', 'danger'], second: ['other'] });

    const deltas: string[] = [];
    client.onNotification((n) => {
      if (n.method === 'item/agentMessage/delta') deltas.push(String(n.params.delta));
    });
    const result = await client.runTurn(thread.id, 'use the tools', { timeoutMs: 30_000 });
    expect(result.turn.status).toBe('completed');
    expect(result.finalMessage).toBe('finished');
    const calls = result.items.filter((i) => i.type === 'mcpToolCall');
    expect(calls.map((c) => [c.tool, c.status])).toEqual([
      ['alpha', 'completed'],
      ['danger', 'failed'],
    ]);
    expect(seen.map((r) => r.method)).toEqual([
      'mcpServer/elicitation/request',
      'mcpServer/elicitation/request',
    ]);
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]?.offeredTools.mcp).toEqual({
      echo: ['alpha', 'danger'],
      second: ['other'],
    });

    // the server started (it wrote its pid) and is running now
    expect((await readFile(pidFile, 'utf8')).trim()).not.toBe('');
    const echoPids = await pidsWithArg(pidFile);
    expect(echoPids.some(alive)).toBe(true);
    const appPid = client.pid ?? 0;
    const exit = await client.close();
    expect(exit.code === 0 || exit.signal !== null).toBe(true);
    expect(alive(appPid)).toBe(false);
    for (let k = 0; k < 20 && echoPids.some(alive); k++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(echoPids.filter(alive)).toEqual([]);
  }, 90_000);

  it('declines approvals by default', async () => {
    const { home } = await setup(twoCalls, {
      echo: {
        command: process.execPath,
        args: [ECHO, '--tools', 'alpha,danger'],
        default_tools_approval_mode: 'prompt',
      },
    });
    const client = await startClient(home);
    const { thread } = await client.startThread({ ephemeral: true });
    await client.waitForMcpStartup(thread.id, ['echo'], 20_000);
    const result = await client.runTurn(thread.id, 'go', { timeoutMs: 30_000 });
    const calls = result.items.filter((i) => i.type === 'mcpToolCall');
    expect(calls.map((c) => c.status)).toEqual(['failed', 'failed']);
    expect(result.finalMessage).toBe('finished');
  }, 60_000);

  it('names the files of a file change it asks about, which Codex sends only with the item', async () => {
    const patch = [
      "apply_patch <<'EOF'",
      '*** Begin Patch',
      '*** Add File: asked.txt',
      '+ASKED',
      '*** End Patch',
      'EOF',
    ].join('\n');
    const { home } = await setup(
      (request) =>
        request.toolOutputs.length === 0
          ? [{ type: 'function_call', name: 'exec_command', arguments: { cmd: patch } }]
          : [{ type: 'message', text: 'finished' }],
      {},
    );
    await mkdir(join(home, 'work'));
    const seen: ServerRequest[] = [];
    const client = await startClient(home, (request) => {
      seen.push(request);
      return 'decline';
    });
    const { thread } = await client.startThread({
      cwd: join(home, 'work'),
      ephemeral: true,
      sandbox: 'read-only',
      approvalPolicy: 'on-request',
    });
    await client.runTurn(thread.id, 'patch it', { timeoutMs: 30_000 });
    const asked = seen.find((r) => r.method === 'item/fileChange/requestApproval');
    expect(asked, JSON.stringify(seen.map((r) => r.method))).toBeDefined();
    expect(Object.keys(asked?.params.fileChanges ?? {})).toEqual([join(home, 'work', 'asked.txt')]);
  }, 60_000);

  it('reports servers that fail to start, required or not', async () => {
    const { home } = await setup(() => [{ type: 'message', text: 'x' }], {
      optional: { command: process.execPath, args: [ECHO, '--fail'], required: false },
    });
    const client = await startClient(home);
    const { thread } = await client.startThread({ ephemeral: true });
    const startup = await client.waitForMcpStartup(thread.id, ['optional'], 20_000);
    expect(startup.optional?.status).toBe('failed');
    expect(startup.optional?.error).toContain('optional');

    const failing = await setup(() => [{ type: 'message', text: 'x' }], {
      good: { command: process.execPath, args: [ECHO], required: true },
      broken: { command: process.execPath, args: [ECHO, '--fail'], required: true },
      missing: { command: '/nonexistent/server', required: true },
    });
    const second = await startClient(failing.home);
    const error: unknown = await second.startThread({ ephemeral: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppServerRequestError);
    const text = (error as AppServerRequestError).rpcMessage;
    expect(failedRequiredServers(text, ['good', 'broken', 'missing'])).toEqual([
      'broken',
      'missing',
    ]);
  }, 60_000);

  it('times out a request, and fails clearly when Codex cannot be started', async () => {
    const { home } = await setup(() => [], {
      slow: { command: process.execPath, args: [ECHO, '--delay-ms', '5000'] },
    });
    const client = await startClient(home);
    const error: unknown = await client
      .request('mcpServerStatus/list', {}, 500)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).code).toBe('timeout');

    const missing: unknown = await AppServerClient.start({
      codexBin: join(home, 'no-such-codex'),
      codexHome: home,
      env: {},
      cwd: home,
    }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ProcessError);
    expect((missing as ProcessError).code).toBe('process-failed');
  }, 30_000);

  it('parses only the required-servers failure text', () => {
    expect(failedRequiredServers('something else: a: b', ['a'])).toEqual([]);
    expect(
      failedRequiredServers(
        'Fatal error: required MCP servers failed to initialize: a-b: x: y; c: gone',
        ['a', 'a-b', 'c', 'd'],
      ),
    ).toEqual(['a-b', 'c']);
  });
});
