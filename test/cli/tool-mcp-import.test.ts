/**
 * An operator with servers in a Codex config.toml and a Claude Code .mcp.json reaches a valid,
 * pinned registry with `tool-mcp import`, the real reference server (mcp-server-everything)
 * answering every probe. Literal secrets never reach an output or a fragment; they move to
 * credentials.env only with --move-secrets. `tool-mcp export` prints variables, never values.
 */
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

import { parseTomlBytes } from '../../src/foundation/toml/parse-toml.js';
import {
  EVERYTHING_BIN,
  launchEnv,
  q,
  runIn,
  workspace,
  type Workspace,
} from '../support/probe-helpers.js';

const TOKEN = 'sk-importCanary0123456789abcdefXYZ';

interface ImportJson {
  ok: boolean;
  format: string;
  dry_run: boolean;
  servers: {
    name: string;
    id: string;
    status: string;
    file: string;
    text?: string;
    missing: string[];
    moved: string[];
    server?: { enabled_tools: string[] };
    diagnostics: { code: string; message: string }[];
  }[];
  diagnostics: { code: string }[];
}

async function operatorFiles(ws: Workspace): Promise<{ codex: string; claude: string }> {
  const codex = ws.path('dot-codex/config.toml');
  await mkdir(ws.path('dot-codex'), { recursive: true });
  await writeFile(
    codex,
    `model = "gpt-5.6-sol"

[mcp_servers.everything]
command = ${q(EVERYTHING_BIN)}
args = ["stdio"]
env = { EVERYTHING_API_TOKEN = ${q(TOKEN)} }
enabled_tools = ["echo", "get-sum", "get-env"]
disabled_tools = ["get-env"]
startup_timeout_sec = 30
`,
  );
  const claude = ws.path('project/.mcp.json');
  await mkdir(ws.path('project'), { recursive: true });
  await writeFile(
    claude,
    JSON.stringify({
      mcpServers: {
        'everything-too': {
          command: EVERYTHING_BIN,
          args: ['stdio'],
          env: { EVERYTHING_LOG: '${EVERYTHING_LOG:-info}' },
        },
      },
    }),
  );
  return { codex, claude };
}

async function registryFiles(ws: Workspace): Promise<string[]> {
  return (await readdir(join(ws.configDir, 'tool-mcp.d'))).sort();
}

describe('tool-mcp import', () => {
  it('brings Codex and Claude Code servers into a valid, pinned registry', async () => {
    const ws = await workspace();
    const env = launchEnv(ws);
    const { codex, claude } = await operatorFiles(ws);

    // without --move-secrets the literal token stays in Codex's file: the variable must be set
    const refused = await runIn(ws, ['tool-mcp', 'import', codex], { env });
    expect(refused.code).toBe(1);
    const refusedOut = refused.json<ImportJson>();
    expect(refusedOut.servers[0]?.diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(['import-secret-not-moved', 'missing-env-var']),
    );
    expect(refused.stdout).not.toContain(TOKEN);
    expect(await registryFiles(ws)).toEqual([]);

    // a dry run says so too: the server is started to list its tools, and its variable is unset
    const dryRefused = await runIn(ws, ['tool-mcp', 'import', codex, '--dry-run'], {
      env,
      json: false,
    });
    expect(dryRefused.code).toBe(1);
    expect(dryRefused.stderr).toContain("-> 'everything' cannot be imported [");
    expect(dryRefused.stderr).toContain('error[missing-env-var]');
    expect(dryRefused.stdout + dryRefused.stderr).not.toContain('would move');

    // a dry run shows the fragment and what would move, and writes nothing
    const dry = await runIn(ws, ['tool-mcp', 'import', codex, '--dry-run', '--move-secrets'], {
      env,
      json: false,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("everything (mcp_servers.everything:3) -> 'everything'");
    expect(dry.stdout).toContain('env_vars = ["EVERYTHING_API_TOKEN"]');
    expect(dry.stdout).toContain('would move to credentials.env: EVERYTHING_API_TOKEN');
    // the literal stays in the source: the operator is told to remove it there
    expect(dry.stdout).toContain('still holds that value: remove it there once imported');
    expect(dry.stdout + dry.stderr).not.toContain(TOKEN);
    expect(await registryFiles(ws)).toEqual([]);

    // --move-secrets: probed, written, pinned; the token is in credentials.env only
    const moved = await runIn(ws, ['tool-mcp', 'import', codex, '--move-secrets'], { env });
    expect(moved.code, moved.stdout).toBe(0);
    expect(moved.stdout).not.toContain(TOKEN);
    const out = moved.json<ImportJson>();
    expect(out.format).toBe('codex');
    expect(out.servers.map((s) => [s.id, s.status, s.moved])).toEqual([
      ['everything', 'imported', ['EVERYTHING_API_TOKEN']],
    ]);
    expect(out.servers[0]?.server?.enabled_tools).toEqual(['echo', 'get-sum']);
    expect(out.diagnostics.map((d) => d.code)).toContain('import-secret-moved');
    const fragment = await readFile(join(ws.configDir, 'tool-mcp.d', '50-everything.toml'), 'utf8');
    expect(fragment).not.toContain(TOKEN);
    expect(fragment).toContain('# Imported by `codex-mmo tool-mcp import` from');
    expect(parseTomlBytes(new TextEncoder().encode(fragment), 'f').ok).toBe(true);
    const credentials = join(ws.configDir, 'credentials.env');
    expect(await readFile(credentials, 'utf8')).toContain(`EVERYTHING_API_TOKEN='${TOKEN}'`);
    expect((await stat(credentials)).mode & 0o777).toBe(0o600);

    // the Claude Code project's server, its ${VAR:-default} kept as a literal value
    const fromClaude = await runIn(ws, ['tool-mcp', 'import', claude], { env });
    expect(fromClaude.code, fromClaude.stdout).toBe(0);
    const claudeOut = fromClaude.json<ImportJson>();
    expect(claudeOut.format).toBe('claude');
    expect(claudeOut.servers[0]).toMatchObject({ id: 'everything-too', status: 'imported' });
    expect(claudeOut.servers[0]?.server?.enabled_tools).toEqual(
      expect.arrayContaining(['echo', 'get-env', 'get-sum']),
    );

    const validate = await runIn(ws, ['tool-mcp', 'validate'], { env });
    expect(validate.code, validate.stdout).toBe(0);
    expect(validate.json<{ servers: { id: string; ok: boolean }[] }>().servers).toEqual([
      expect.objectContaining({ id: 'everything', ok: true }),
      expect.objectContaining({ id: 'everything-too', ok: true }),
    ]);
    const probe = await runIn(ws, ['tool-mcp', 'probe', 'everything'], { env });
    expect(probe.code, probe.stdout).toBe(0);

    // importing again names the taken ID and changes nothing
    const again = await runIn(ws, ['tool-mcp', 'import', codex, '--move-secrets'], { env });
    expect(again.code).toBe(1);
    expect(again.json<ImportJson>().servers[0]?.diagnostics.map((d) => d.code)).toContain(
      'import-id-taken',
    );
    // nothing was written, so nothing is said to have moved
    expect(again.json<ImportJson>().servers[0]?.moved).toEqual([]);
    expect(await registryFiles(ws)).toEqual(['50-everything-too.toml', '50-everything.toml']);

    // export prints the variable, never its value
    const exported = await runIn(ws, ['tool-mcp', 'export', 'everything', '--to', 'claude'], {
      env,
      json: false,
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({
      mcpServers: { everything: { env: { EVERYTHING_API_TOKEN: '${EVERYTHING_API_TOKEN}' } } },
    });
    expect(exported.stdout + exported.stderr).not.toContain(TOKEN);
  }, 120_000);

  it('names a server whose start failed, and how to import only it once fixed', async () => {
    const ws = await workspace();
    const env = launchEnv(ws);
    const file = ws.path('two/config.toml');
    await mkdir(ws.path('two'), { recursive: true });
    await writeFile(
      file,
      `[mcp_servers.everything]
command = ${q(EVERYTHING_BIN)}
args = ["stdio"]

[mcp_servers.broken]
command = "/bin/false"
`,
    );
    const result = await runIn(ws, ['tool-mcp', 'import', file], { env, json: false });
    expect(result.code).toBe(1);
    expect(await registryFiles(ws)).toEqual(['50-everything.toml']);
    expect(result.stderr).toMatch(
      /broken \(mcp_servers\.broken:\d+\) -> 'broken' cannot be imported \[[a-z-]+\]/,
    );
    expect(result.stderr).toContain('not imported: broken;');
    expect(result.stderr).toContain('--only broken');
  }, 60_000);

  it('writes without a probe from the source tool list, under another ID', async () => {
    const ws = await workspace();
    const env = launchEnv(ws);
    const { codex, claude } = await operatorFiles(ws);
    const result = await runIn(
      ws,
      ['tool-mcp', 'import', codex, '--no-probe', '--rename', 'everything=kitchen-sink'],
      { env },
    );
    expect(result.code, result.stdout).toBe(0);
    const out = result.json<ImportJson>();
    expect(out.servers[0]).toMatchObject({
      id: 'kitchen-sink',
      status: 'imported',
      missing: ['EVERYTHING_API_TOKEN'],
    });
    expect(await registryFiles(ws)).toEqual(['50-kitchen-sink.toml']);
    // a Claude Code file lists no tools: without a probe nothing can be written
    const noTools = await runIn(ws, ['tool-mcp', 'import', claude, '--no-probe'], { env });
    expect(noTools.code).toBe(1);
    expect(noTools.json<ImportJson>().servers[0]?.diagnostics.map((d) => d.code)).toContain(
      'import-tools-unknown',
    );
  }, 60_000);

  it('detects nothing in a file of another kind, and refuses an unknown server.json schema', async () => {
    const ws = await workspace();
    const other = ws.path('other.json');
    await writeFile(other, '{"servers": {}}');
    const unknown = await runIn(ws, ['tool-mcp', 'import', other]);
    expect(unknown.code).toBe(1);
    expect(unknown.json<ImportJson>().diagnostics.map((d) => d.code)).toEqual([
      'import-format-unknown',
    ]);
    // a misspelled format is a usage error with the nearest one, both ways
    const from = await runIn(ws, ['tool-mcp', 'import', other, '--from', 'codx'], { json: false });
    expect(from.code).toBe(2);
    expect(from.stderr).toContain(
      "--from takes one of codex, claude, server-json (did you mean 'codex'?)",
    );
    const to = await runIn(ws, ['tool-mcp', 'export', 'x', '--to', 'clude'], { json: false });
    expect(to.code).toBe(2);
    expect(to.stderr).toContain("(did you mean 'claude'?)");
    const schema = await runIn(ws, [
      'tool-mcp',
      'import',
      resolve('test/fixtures/import/server-json/unknown-schema.json'),
    ]);
    expect(schema.json<ImportJson>().diagnostics.map((d) => d.code)).toEqual([
      'import-schema-unknown',
    ]);
    // no file there, or a directory: nothing to read, and not a syntax error
    for (const path of [ws.path('absent.toml'), ws.path('.')]) {
      const missing = await runIn(ws, ['tool-mcp', 'import', path]);
      expect(missing.code).toBe(1);
      expect(missing.json<ImportJson>().diagnostics.map((d) => d.code)).toEqual([
        'import-file-unreadable',
      ]);
    }
  });
});
