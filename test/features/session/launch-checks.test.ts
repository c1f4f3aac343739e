/**
 * `exec` refuses a session that cannot work before anything starts, with doctor's words: a
 * granted server whose command does not exist, a model provider whose address accepts no
 * connection, and OpenAI's provider without a login. No session is recorded and no Codex runs.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { echoServer, makeWorld, profileToml, runInWorld, type World } from '../../support/world.js';

const PROFILE = profileToml('checked', 'lead', { lead: { grants: { srv: {} } } });

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function sessions(world: World): Promise<string[]> {
  const dir = join(world.stateDir, 'sessions');
  return existsSync(dir) ? readdir(dir) : [];
}

async function refused(world: World, code: string): Promise<string> {
  const started = Date.now();
  const result = await runInWorld(world, ['exec', world.packDir, 'go']);
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toContain(`error[${code}]`);
  // said once, and nothing of a session exists
  expect(result.stderr.split(`error[${code}]`)).toHaveLength(2);
  expect(await sessions(world)).toEqual([]);
  expect(Date.now() - started).toBeLessThan(15_000);
  return result.stderr;
}

describe('the checks before a session starts', () => {
  it('refuses a granted server whose command does not exist', async () => {
    const port = await closedPort();
    const world = await makeWorld({
      registry: [
        '[tool_mcp_servers.srv]',
        'transport = "stdio"',
        'command = "no-such-server-command-7f3a"',
        'enabled_tools = ["echo"]',
        'default_tools_approval_mode = "approve"',
      ].join('\n'),
      profile: PROFILE,
      modelUrl: `http://127.0.0.1:${String(port)}/v1`,
    });
    const stderr = await refused(world, 'command-not-found');
    expect(stderr).toContain("'no-such-server-command-7f3a'");
  });

  it('refuses a model provider whose address accepts no connection', async () => {
    const port = await closedPort();
    const world = await makeWorld({
      registry: echoServer('srv'),
      profile: PROFILE,
      modelUrl: `http://127.0.0.1:${String(port)}/v1`,
    });
    const stderr = await refused(world, 'model-provider-unreachable');
    expect(stderr).toContain(`127.0.0.1:${String(port)}`);
    expect(stderr).toContain('ECONNREFUSED');
  });

  it("refuses OpenAI's provider without a login or key", async () => {
    const world = await makeWorld({ registry: echoServer('srv'), profile: PROFILE });
    await rm(join(world.baseCodexHome, 'auth.json'));
    await refused(world, 'model-login-required');
  });
});
