/**
 * Acceptance tests against the real `@modelcontextprotocol/server-everything` from npm, over stdio
 * and over streamable HTTP (bound to 127.0.0.1 on a free port).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  EVERYTHING_BIN,
  launchEnv,
  q,
  runIn,
  workspace,
  type Workspace,
} from '../../support/probe-helpers.js';
import { useEverythingHttp } from '../../support/everything-http.js';

interface Json {
  ok: boolean;
  server: string;
  server_info?: { name: string; version: string };
  protocol_version?: string;
  time_to_ready_ms?: number;
  written?: boolean;
  tools: {
    name: string;
    annotations: Record<string, unknown> | null;
    enabled: boolean;
    approval_mode?: string;
    asks_approval?: boolean;
    pin?: string;
  }[];
  diagnostics: { code: string; severity: string; message: string; path?: string }[];
}

function cli(ws: Workspace, args: string[], env: Record<string, string>, json = true) {
  return runIn(ws, args, { env, json });
}

/** `[tool_mcp_servers.everything]` running the real server over stdio, then `rest`. */
const stdioEverything = (rest: string): string => `[tool_mcp_servers.everything]
transport = "stdio"
command = ${q(EVERYTHING_BIN)}
args = ["stdio"]
${rest}
`;

describe('server-everything over stdio', () => {
  it('lists its tools with annotations, flags risky approval and unknown tool names', async () => {
    const ws = await workspace();
    await ws.fragment(
      '10-everything.toml',
      stdioEverything(
        `enabled_tools = ["echo", "get-sum", "toggle-simulated-logging", "get_env"]
default_tools_approval_mode = "auto"

[tool_mcp_servers.everything.tools.echo]
approval_mode = "approve"`,
      ),
    );
    const result = await cli(ws, ['tool-mcp', 'probe', 'everything'], launchEnv(ws));
    expect(result.code).toBe(1);
    const out = result.json<Json>();
    expect(out.server_info?.name).toBe('mcp-servers/everything');
    expect(out.protocol_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(out.time_to_ready_ms).toBeGreaterThan(0);
    const names = out.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'get-env', 'toggle-simulated-logging']),
    );
    const echo = out.tools.find((t) => t.name === 'echo');
    expect(echo).toMatchObject({
      enabled: true,
      approval_mode: 'approve',
      asks_approval: false,
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    const codes = out.diagnostics.map((d) => [d.code, d.severity]);
    expect(codes).toContainEqual(['tool-not-offered', 'error']);
    expect(codes).toContainEqual(['approval-mode-risk', 'warning']);
    expect(codes).toContainEqual(['tool-offered-not-enabled', 'info']);
    const notOffered = out.diagnostics.find((d) => d.code === 'tool-not-offered');
    expect(notOffered?.message).toContain('did you mean "get-env"?');
    expect(notOffered?.path).toBe('tool_mcp_servers.everything.enabled_tools[3]');
    // echo is read-only: "approve" is no risk there; toggle-simulated-logging under "auto" is
    const risks = out.diagnostics.filter((d) => d.code === 'approval-mode-risk');
    expect(risks).toHaveLength(1);
    expect(risks[0]?.message).toContain(`'toggle-simulated-logging'`);
  });

  it('pins the surface and probes clean against the pin', async () => {
    const ws = await workspace();
    await ws.fragment(
      '10-everything.toml',
      stdioEverything(
        'enabled_tools = ["echo", "get-sum"]\ndefault_tools_approval_mode = "writes"',
      ),
    );
    const env = launchEnv(ws);
    const pin = await cli(ws, ['tool-mcp', 'pin', 'everything'], env);
    expect(pin.code).toBe(0);
    expect(pin.json<Json>().written).toBe(true);
    const probe = await cli(ws, ['tool-mcp', 'probe', 'everything'], env);
    expect(probe.code).toBe(0);
    const out = probe.json<Json>();
    expect(out.ok).toBe(true);
    expect(out.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(out.tools.filter((t) => t.enabled).map((t) => t.pin)).toEqual(['match', 'match']);
  });
});

describe('server-everything over streamable HTTP', () => {
  const everything = useEverythingHttp();
  let ws: Workspace;
  const token = 'canary-bearer-token-4411aa';
  const team = 'canary-team-header-9c';

  beforeAll(async () => {
    ws = await workspace();
  });

  const fragment = (id: string, url: string, extra = '') => `[tool_mcp_servers.${id}]
transport = "streamable_http"
url = ${q(url)}
bearer_token_env_var = "EVERY_TOKEN"
env_http_headers = { "X-Team" = "TEAM_ID" }
http_headers = { "X-Client" = "codex-mmo-test" }
enabled_tools = ["echo", "get-sum"]
default_tools_approval_mode = "writes"
${extra}`;

  it('connects with the bearer token and headers from their variables, never printing them', async () => {
    await ws.fragment(
      '10-http.toml',
      fragment('every-http', `http://127.0.0.1:${everything.port}/mcp`),
    );
    await ws.credentials(`TEAM_ID=${team}\n`);
    const env = launchEnv(ws, { EVERY_TOKEN: token });
    const result = await cli(ws, ['tool-mcp', 'probe', 'every-http'], env);
    expect(result.code).toBe(0);
    const out = result.json<Json>();
    expect(out.ok).toBe(true);
    expect(out.server_info?.name).toBe('mcp-servers/everything');
    expect(out.tools.find((t) => t.name === 'get-sum')).toMatchObject({
      enabled: true,
      annotations: { readOnlyHint: true },
      asks_approval: false,
    });
    const requests = (await readFile(everything.headersFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(requests.length).toBeGreaterThan(0);
    for (const headers of requests) {
      expect(headers.authorization).toBe(`Bearer ${token}`);
      expect(headers['x-team']).toBe(team);
      expect(headers['x-client']).toBe('codex-mmo-test');
    }
    expect(result.stdout + result.stderr).not.toContain(token);
    expect(result.stdout + result.stderr).not.toContain(team);

    // pin over HTTP, then a clean probe against the pin
    expect((await cli(ws, ['tool-mcp', 'pin', 'every-http'], env)).code).toBe(0);
    const again = await cli(ws, ['tool-mcp', 'probe', 'every-http'], env);
    expect(again.code).toBe(0);
    expect(
      again
        .json<Json>()
        .tools.filter((t) => t.enabled)
        .map((t) => t.pin),
    ).toEqual(['match', 'match']);
  });

  it('does not connect without the bearer token (Codex would not start the server)', async () => {
    await ws.fragment(
      '10-http.toml',
      fragment('every-http', `http://127.0.0.1:${everything.port}/mcp`),
    );
    const requests = async () =>
      (await readFile(everything.headersFile, 'utf8').catch(() => '')).length;
    const before = await requests();
    const result = await cli(ws, ['tool-mcp', 'probe', 'every-http'], launchEnv(ws));
    expect(result.code).toBe(1);
    const out = result.json<Json & { launched: boolean }>();
    expect(out.launched).toBe(false);
    expect(out.diagnostics.map((d) => d.code)).toEqual(['missing-env-var', 'probe-start-failed']);
    const failure = out.diagnostics.find((d) => d.code === 'probe-start-failed');
    expect(failure?.message).toContain('its bearer token variable EVERY_TOKEN is not set');
    expect(failure?.message).toContain(
      `add EVERY_TOKEN=… to ${join(ws.configDir, 'credentials.env')}`,
    );
    expect(await requests()).toBe(before);
    const text = await cli(ws, ['tool-mcp', 'probe', 'every-http'], launchEnv(ws), false);
    expect(text.stdout).toBe('every-http (streamable_http): not started\n');
    expect(text.stderr).toContain('error[probe-start-failed] tool_mcp_servers.every-http:');
  });

  it('reports a refused connection as a start failure', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        const free = typeof address === 'object' && address !== null ? address.port : 0;
        probe.close(() => {
          resolve(free);
        });
      });
    });
    await ws.fragment('10-http.toml', fragment('every-http', `http://127.0.0.1:${closed}/mcp`));
    const result = await cli(
      ws,
      ['tool-mcp', 'probe', 'every-http'],
      launchEnv(ws, { EVERY_TOKEN: token }),
    );
    expect(result.code).toBe(1);
    const failure = result.json<Json>().diagnostics.find((d) => d.code === 'probe-start-failed');
    expect(failure?.message).toContain('cannot connect');
    expect(result.stdout).not.toContain(token);
  });
});
