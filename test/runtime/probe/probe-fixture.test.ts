import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../../support/cli.js';
import {
  ALPHA_PROMPT,
  hangingServer,
  launchEnv,
  processGone,
  runIn,
  workspace,
  type Workspace,
} from '../../support/probe-helpers.js';

interface ProbeJson {
  ok: boolean;
  server: string;
  server_info?: { name: string; version: string; title?: string };
  protocol_version?: string;
  time_to_ready_ms?: number;
  tools: { name: string; annotations: unknown; enabled: boolean; description?: string }[];
  stderr_tail?: string[];
  diagnostics: { code: string; severity: string; message: string; line?: number; path?: string }[];
}

const TOOLS = [
  { name: 'alpha', description: 'First tool', annotations: { readOnlyHint: true } },
  { name: 'beta', description: 'Second tool' },
  { name: 'gamma', description: 'Third tool', annotations: { destructiveHint: true } },
  { name: 'delta', description: 'Fourth tool' },
  { name: 'epsilon', description: 'Fifth tool' },
];

function probe(ws: Workspace, id: string, env: Record<string, string>, json = true) {
  return runIn(ws, ['tool-mcp', 'probe', id], { env, json });
}

describe('tool-mcp probe against the fixture server', () => {
  it('launches exactly as Codex would: cleared env, referenced variables only, tilde cwd, bare command', async () => {
    const ws = await workspace();
    await mkdir(join(ws.home, 'work'));
    const envFile = ws.path('env.json');
    const pidFile = ws.path('pids.json');
    await ws.credentials(
      'REF_FROM_FILE=canary-file-value-93f1\nUNREFERENCED_FILE=canary-unused-77\n',
    );
    await ws.fixtureServer(
      { tools: TOOLS, pageSize: 2, envFile, pidFile, spawnGrandchild: true },
      `cwd = "~/work"
env_vars = ["REF_FROM_ENV", "REF_FROM_FILE", "NEVER_SET"]
env = { MODE = "fast" }
enabled_tools = ["alpha", "beta", "gamma", "delta", "epsilon"]
default_tools_approval_mode = "prompt"`,
      { command: 'node' },
    );
    const env = launchEnv(ws, {
      TMPDIR: '/tmp',
      LC_CTYPE: 'C.UTF-8',
      CANARY_UNREFERENCED: 'canary-env-value-51c2',
      AWS_SECRET_ACCESS_KEY: 'canary-aws-value-0a9e',
      REF_FROM_ENV: 'canary-env-ref-value-d4e8',
    });
    const result = await probe(ws, 'fx', env);
    const out = result.json<ProbeJson>();
    // NEVER_SET is a missing referenced variable: an error, but the server still starts
    expect(out.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual([
      'missing-env-var',
    ]);
    expect(result.code).toBe(1);

    const seen = JSON.parse(await readFile(envFile, 'utf8')) as {
      env: Record<string, string>;
      cwd: string;
    };
    expect(Object.keys(seen.env).sort()).toEqual(
      ['HOME', 'LANG', 'MODE', 'PATH', 'REF_FROM_ENV', 'REF_FROM_FILE', 'TMPDIR'].sort(),
    );
    expect(seen.env.REF_FROM_ENV).toBe('canary-env-ref-value-d4e8');
    expect(seen.env.REF_FROM_FILE).toBe('canary-file-value-93f1');
    expect(seen.cwd).toBe(join(ws.home, 'work'));
    const output = result.stdout + result.stderr;
    for (const canary of [
      'canary-env-value-51c2',
      'canary-aws-value-0a9e',
      'canary-env-ref-value-d4e8',
      'canary-file-value-93f1',
      'canary-unused-77',
    ]) {
      expect(output).not.toContain(canary);
    }

    // all five tools across three pages, with annotations
    expect(out.tools.map((t) => t.name)).toEqual(['alpha', 'beta', 'gamma', 'delta', 'epsilon']);
    expect(out.tools[0]?.annotations).toEqual({ readOnlyHint: true });
    expect(out.tools[1]?.annotations).toBeNull();
    expect(out.server_info).toEqual({
      name: 'probe-fixture',
      version: '1.2.3',
      title: 'Probe Fixture',
    });
    expect(out.protocol_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(typeof out.time_to_ready_ms).toBe('number');

    // the whole process group is gone, grandchild included
    const pids = JSON.parse(await readFile(pidFile, 'utf8')) as { pid: number; grandchild: number };
    expect(await processGone(pids.pid)).toBe(true);
    expect(await processGone(pids.grandchild)).toBe(true);
  });

  it('prints a readable report and exits 0 when everything is fine', async () => {
    const ws = await workspace();
    await ws.fixtureServer(
      { tools: TOOLS.slice(0, 2) },
      'enabled_tools = ["alpha"]\ndefault_tools_approval_mode = "writes"',
    );
    const result = await probe(ws, 'fx', launchEnv(ws), false);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('fx (stdio)');
    expect(result.stdout).toContain('probe-fixture 1.2.3 (Probe Fixture)');
    expect(result.stdout).toMatch(/alpha\s+yes\s+writes\s+no\s+-\s+read-only/);
    expect(result.stdout).toMatch(/beta\s+no\s+-/);
    expect(result.stderr).toContain('info[tool-offered-not-enabled]');
    expect(result.stderr).toContain('info[server-not-pinned]');
  });

  it('keeps --json valid when a credential value is a JSON word', async () => {
    const ws = await workspace();
    await ws.credentials('FLAG=true\n');
    await ws.fixtureServer(
      { tools: [{ name: 'alpha', description: 'says true', annotations: { readOnlyHint: true } }] },
      `env_vars = ["FLAG"]\n${ALPHA_PROMPT}`,
    );
    const result = await probe(ws, 'fx', launchEnv(ws));
    expect(result.code).toBe(0);
    const out = result.json<ProbeJson>();
    expect(out.ok).toBe(true);
    expect(out.tools[0]?.annotations).toEqual({ readOnlyHint: true });
    expect(out.tools[0]?.description).toBe('says ***');
  });

  it('reports a crashing server with its stderr tail and masks the credential it echoed', async () => {
    const ws = await workspace();
    const secret = 'canary-crash-secret-6b1f0e';
    const envSecret = 'canary-crash-env-secret-2c7d';
    const pidFile = ws.path('pids.json');
    await ws.credentials(`SECRET_TOKEN=${secret}\n`);
    await ws.fixtureServer(
      { mode: 'crash', stderrEnv: ['SECRET_TOKEN', 'OTHER_TOKEN'], pidFile },
      `env_vars = ["SECRET_TOKEN", "OTHER_TOKEN"]\n${ALPHA_PROMPT}`,
    );
    const env = launchEnv(ws, { OTHER_TOKEN: envSecret });
    const text = await probe(ws, 'fx', env, false);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('error[probe-start-failed]');
    expect(text.stderr).toContain('exited with code 3');
    expect(text.stderr).toContain('| fatal: cannot authenticate, giving up');
    expect(text.stderr).toContain('| debug: SECRET_TOKEN=***');
    expect(text.stderr).toContain('| debug: OTHER_TOKEN=***');
    const json = await probe(ws, 'fx', env);
    expect(json.code).toBe(1);
    const out = json.json<ProbeJson>();
    expect(out.stderr_tail).toContain('debug: SECRET_TOKEN=***');
    for (const output of [text.stdout, text.stderr, json.stdout, json.stderr]) {
      expect(output).not.toContain(secret);
      expect(output).not.toContain(envSecret);
    }
  });

  it('times out a server that never answers, killing its whole group even if it ignores SIGTERM', async () => {
    const ws = await workspace();
    const pidFile = ws.path('pids.json');
    // 3 s: long enough for the server to start (and write its pids) on a loaded machine
    await ws.fixtureServer(hangingServer(pidFile), `startup_timeout_sec = 3\n${ALPHA_PROMPT}`);
    const started = Date.now();
    const result = await probe(ws, 'fx', launchEnv(ws));
    const elapsed = Date.now() - started;
    expect(result.code).toBe(1);
    const out = result.json<ProbeJson>();
    const failure = out.diagnostics.find((d) => d.code === 'probe-timeout');
    expect(failure?.message).toContain('startup_timeout_sec = 3');
    expect(failure).toMatchObject({ line: 3, path: 'tool_mcp_servers.fx' });
    expect(elapsed).toBeLessThan(10_000);
    const pids = JSON.parse(await readFile(pidFile, 'utf8')) as { pid: number; grandchild: number };
    expect(await processGone(pids.pid)).toBe(true);
    expect(await processGone(pids.grandchild)).toBe(true);
  }, 30_000);

  it('reports a server that speaks garbage on stdout as a protocol error', async () => {
    const ws = await workspace();
    await ws.fixtureServer({ mode: 'garbage' }, `startup_timeout_sec = 1\n${ALPHA_PROMPT}`);
    const result = await probe(ws, 'fx', launchEnv(ws));
    expect(result.code).toBe(1);
    const codes = result.json<ProbeJson>().diagnostics.map((d) => [d.code, d.severity]);
    expect(codes).toContainEqual(['probe-protocol-error', 'error']);
    expect(codes).toContainEqual(['probe-protocol-noise', 'error']);
    expect(result.stdout).toContain('this is not JSON-RPC at all');
  });

  it('tolerates a stray stdout line (as Codex does) with a warning', async () => {
    const ws = await workspace();
    await ws.fixtureServer({ mode: 'banner', tools: TOOLS.slice(0, 1) });
    const result = await probe(ws, 'fx', launchEnv(ws));
    expect(result.code).toBe(0);
    const out = result.json<ProbeJson>();
    expect(out.ok).toBe(true);
    expect(out.diagnostics.find((d) => d.code === 'probe-protocol-noise')?.severity).toBe(
      'warning',
    );
  });

  it('reports an unsupported protocol version as a protocol error', async () => {
    const ws = await workspace();
    await ws.fixtureServer({ mode: 'bad-version' });
    const result = await probe(ws, 'fx', launchEnv(ws));
    expect(result.code).toBe(1);
    const error = result
      .json<ProbeJson>()
      .diagnostics.find((d) => d.code === 'probe-protocol-error');
    expect(error?.message).toContain('1999-01-01');
  });

  it('does not start a server whose command does not resolve', async () => {
    const ws = await workspace();
    await ws.fragment(
      '10-fx.toml',
      `[tool_mcp_servers.fx]
transport = "stdio"
command = "no-such-mcp-server-b7"
enabled_tools = ["alpha"]
default_tools_approval_mode = "prompt"
`,
    );
    const result = await probe(ws, 'fx', launchEnv(ws));
    expect(result.code).toBe(1);
    const codes = result.json<ProbeJson>().diagnostics.map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['command-not-found', 'probe-start-failed']));
  });

  it('has --help and treats a missing ID as a usage error', async () => {
    for (const command of ['probe', 'pin']) {
      const help = await runCli(['tool-mcp', command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: codex-mmo tool-mcp ${command} ID [--json]`);
      expect((await runCli(['tool-mcp', command])).code).toBe(2);
    }
  });

  it('rejects an unknown server ID with a suggestion', async () => {
    const ws = await workspace();
    await ws.fixtureServer({}, ALPHA_PROMPT, { id: 'fixture' });
    const result = await probe(ws, 'fixtur', launchEnv(ws), false);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[unknown-server]');
    expect(result.stderr).toContain("did you mean 'fixture'?");
  });
});
