/**
 * `profile smoke` with server IDs of the shapes the registry allows beside plain words, with real
 * Codex: hyphenated (a Streamable HTTP `everything-http` and a stdio `b--c`), a trailing `__`
 * (`a__`, whose namespace `mcp__a__` begins with `a`'s) and a digit, granted to a root and to a
 * native role the model wire narrows. Every role's received tools equal its granted ones. IDs
 * that Codex would offer under one name are refused before any Codex starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { SmokeReport } from '../../../src/features/smoke/smoke.js';
import { runCli } from '../../support/cli.js';
import { startHttpMcpServer, type HttpMcpServer } from '../../support/http-mcp-server.js';
import {
  echoServer,
  makeWorld,
  profileToml,
  requireBuild,
  webServer,
  type World,
} from '../../support/world.js';

const TOKEN = 'smoke-ids-token-7c6b5a4d';
const WORKSPACE = 'smoke-ids-workspace-3e2f';

let http: HttpMcpServer;

beforeAll(async () => {
  http = await startHttpMcpServer();
});

afterAll(async () => {
  await http.close();
});

async function smoke(world: World): Promise<ReturnType<typeof runCli>> {
  return runCli(['profile', 'smoke', world.packDir, '--json', ...world.dirArgs], {
    env: world.env,
    home: world.home,
    cwd: world.workDir,
  });
}

describe('profile smoke with server IDs of every shape', () => {
  it('passes with hyphenated, underscored and digit IDs, for the root and a narrowed native role', async () => {
    requireBuild();
    const world = await makeWorld({
      registry: `${webServer('everything-http', http.url)}${echoServer('b--c', { tools: 'list,add-item' })}${echoServer('a', { tools: 'one,two' })}${echoServer('a__', { tools: 'one,two' })}${echoServer('x9', { tools: 'echo' })}`,
      profile: profileToml('ids', 'lead', {
        lead: {
          natives: ['scout'],
          grants: { 'everything-http': {}, a: { tools: ['one'] }, x9: {} },
        },
        // in the lead's process, but granted none of the lead's servers: the wire narrows it
        scout: { grants: { 'b--c': { tools: ['add-item'] }, a__: { tools: ['two'] } } },
      }),
      credentials: `WEB_TOKEN=${TOKEN}\nWEB_WORKSPACE=${WORKSPACE}\n`,
    });
    const result = await smoke(world);
    const report = result.json<SmokeReport>();
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(report.ok, JSON.stringify(report.diagnostics)).toBe(true);
    expect(result.code).toBe(0);
    const codes = report.diagnostics.map((d) => d.code);
    expect(codes).not.toContain('smoke-tool-extra');
    expect(codes).not.toContain('smoke-tool-missing');
    expect(report.roles.lead).toMatchObject({
      kind: 'root',
      measured: true,
      granted: { 'everything-http': ['note'], a: ['one'], x9: ['echo'] },
      received: { 'everything-http': ['note'], a: ['one'], x9: ['echo'] },
      extra: {},
      missing: {},
    });
    expect(report.roles.scout).toMatchObject({
      kind: 'native',
      measured: true,
      granted: { 'b--c': ['add-item'], a__: ['two'] },
      received: { 'b--c': ['add-item'], a__: ['two'] },
      extra: {},
      missing: {},
    });
    expect(report.servers_failed).toEqual([]);
  }, 180_000);

  it('refuses servers of one process that differ only in - versus _, naming both', async () => {
    const world = await makeWorld({
      registry: `${echoServer('my-notes')}${echoServer('my_notes')}`,
      profile: profileToml('twins', 'lead', {
        lead: { natives: ['scout'], grants: { 'my-notes': {} } },
        scout: { grants: { my_notes: {} } },
      }),
    });
    const result = await smoke(world);
    const report = result.json<SmokeReport>();
    expect(report.ok).toBe(false);
    expect(result.code).not.toBe(0);
    const collision = report.diagnostics.find((d) => d.code === 'server-name-collision');
    expect(collision, JSON.stringify(report.diagnostics)).toMatchObject({
      severity: 'error',
      server: 'my-notes',
    });
    expect(collision!.message).toContain('`my-notes` and `my_notes`');
    expect(collision!.message).toContain('`mcp__my_notes`');
    expect(collision!.message).toContain('rename one of them');
    // refused at compile: no role was measured, no Codex ran
    expect(report.roles).toEqual({});
  });
});
