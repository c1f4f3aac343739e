/**
 * `profile smoke` end to end: real Codex, real MCP servers (the echo-server fixture and a
 * Streamable HTTP server of our own) and the scripted model. The profile runs as a session: the
 * participant is spawned through mmo_mesh, native roles are measured in every process they belong
 * to, and per-role granted versus received tools, mmo_mesh tools, failed servers and missing
 * variables are reported, with credentials reaching their servers but never the output.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SCRIPTED_PROVIDER_ID } from '../../../src/runtime/codex/scripted-model.js';
import {
  meshAssignments,
  smokeHome,
  toolDifference,
  type SmokeReport,
} from '../../../src/features/smoke/smoke.js';
import { runCli } from '../../support/cli.js';
import { fixture } from '../../support/plan-fixture.js';
import { startHttpMcpServer, type HttpMcpServer } from '../../support/http-mcp-server.js';
import {
  echoServer,
  makeWorld,
  profileToml,
  requireBuild,
  webServer,
  type World,
} from '../../support/world.js';

const CANARY = 'smoke-canary-9f8e7d6c5b4a';
const TOKEN = 'smoke-token-1a2b3c4d';
const WORKSPACE = 'smoke-workspace-5e6f';

let http: HttpMcpServer;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

beforeAll(async () => {
  requireBuild();
  http = await startHttpMcpServer();
});

afterAll(async () => {
  await http.close();
});

/** Runs `profile smoke` in-process against a world; `--json` unless `text`. */
async function smoke(world: World, text = false): Promise<ReturnType<typeof runCli>> {
  return runCli(
    ['profile', 'smoke', world.packDir, ...(text ? [] : ['--json']), ...world.dirArgs],
    { env: world.env, home: world.home, cwd: world.workDir },
  );
}

describe('smoke helpers', () => {
  it('computes per-server differences', () => {
    expect(toolDifference({ a: ['x', 'y'], b: ['z'] }, { a: ['y'] })).toEqual({
      a: ['x'],
      b: ['z'],
    });
    expect(toolDifference({ a: ['x'] }, { a: ['x'] })).toEqual({});
  });

  it('points a home started on its own at the scripted model and leaves mmo_mesh out', () => {
    const adapted = smokeHome(
      {
        process: 'lead',
        files: new Map([
          [
            'config.toml',
            'model = "gpt-x"\n[model_providers.own]\nname = "own"\n[mcp_servers.mmo_mesh]\ncommand = "x"\n[mcp_servers.files]\ncommand = "y"\n',
          ],
          ['agents/r.toml', 'name = "r"\n[mcp_servers.mmo_mesh]\ncommand = "x"\n'],
        ]),
      },
      'http://127.0.0.1:1/v1',
    );
    const config = parse(adapted.files.get('config.toml') ?? '');
    expect(config.model_provider).toBe(SCRIPTED_PROVIDER_ID);
    expect(config.features).toEqual({ apps: false });
    expect(Object.keys(config.model_providers as object).sort()).toEqual(
      ['own', SCRIPTED_PROVIDER_ID].sort(),
    );
    expect(Object.keys(config.mcp_servers as object)).toEqual(['files']);
    expect(parse(adapted.files.get('agents/r.toml') ?? '').mcp_servers).toEqual({});
  });

  it('assigns each participant role to the process root that may spawn it', () => {
    const { stored, plan } = fixture();
    const { spawns, spawnedBy } = meshAssignments(stored.snapshot, plan);
    expect(Object.fromEntries(spawns)).toEqual({ lead: ['researcher'], researcher: [] });
    expect(Object.fromEntries(spawnedBy)).toEqual({ researcher: 'lead' });
  });
});

describe('profile smoke with real Codex', () => {
  it('runs the profile as a session: a participant through mmo_mesh, an HTTP server, natives in every process', async () => {
    const world = await makeWorld({
      registry: (root) =>
        `${echoServer('files', {
          tools: 'read,write!',
          envVars: ['FILES_TOKEN'],
          args: ['--record-env', join(root, 'files-env.json')],
          approval: 'writes',
        })}${echoServer('notes', { tools: 'list,add' })}${webServer('web', http.url)}`,
      profile: profileToml('smoke-team', 'lead', {
        lead: {
          natives: ['reviewer'],
          spawn: ['researcher'],
          control: ['researcher'],
          grants: { files: { tools: ['read'] } },
        },
        reviewer: { grants: { notes: {} } },
        researcher: { natives: ['reviewer'], grants: { web: {} } },
      }),
      credentials: `FILES_TOKEN=${CANARY}\nWEB_TOKEN=${TOKEN}\nWEB_WORKSPACE=${WORKSPACE}\n`,
    });

    const result = await smoke(world);
    const report = result.json<SmokeReport>();
    expect(result.stderr + result.stdout).not.toContain(CANARY);
    expect(result.stderr + result.stdout).not.toContain(TOKEN);
    expect(report.ok, JSON.stringify(report.diagnostics)).toBe(true);
    expect(result.code).toBe(0);
    expect(report.profile).toBe('smoke-team');
    expect(report.roles.lead).toMatchObject({
      process: 'lead',
      kind: 'root',
      via: 'session',
      measured: true,
      granted: { files: ['read'] },
      received: { files: ['read'] },
      extra: {},
      missing: {},
      mesh: { expected: true, measured: true },
    });
    expect(report.roles.lead?.mesh.received).toHaveLength(5);
    // the participant was spawned by the lead's model through mmo_mesh, as in a session
    expect(report.roles.researcher).toMatchObject({
      process: 'researcher',
      kind: 'participant',
      via: 'mmo_mesh',
      spawned_by: 'lead',
      measured: true,
      received: { web: ['note'] },
      extra: {},
      missing: {},
      mesh: { expected: false, measured: true, received: [] },
    });
    // the HTTP server saw the bearer token and header from credentials.env
    const posts = http.requests.filter((h) => h['content-type']?.includes('json'));
    expect(posts.length).toBeGreaterThan(0);
    for (const headers of posts) {
      expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(headers['x-workspace']).toBe(WORKSPACE);
    }
    // measured through the model wire: each process enables what any of its roles is granted,
    // and the wire offers the native role exactly its own grant, a server its roots lack included
    expect(report.roles.reviewer).toMatchObject({
      process: 'lead',
      kind: 'native',
      via: 'spawn_agent',
      shared_process: true,
      measured: true,
      granted: { notes: ['add', 'list'] },
      received: { notes: ['add', 'list'] },
      extra: {},
      missing: {},
    });
    expect(report.roles.reviewer?.other_processes).toEqual([
      expect.objectContaining({
        process: 'researcher',
        measured: true,
        received: { notes: ['add', 'list'] },
        extra: {},
        missing: {},
      }),
    ]);
    expect(report.model_wire).toEqual({ session_enforcing: true });
    expect(report.diagnostics.map((d) => d.code)).not.toContain('native-role-not-isolated');
    expect(report.servers_failed).toEqual([]);
    expect(report.missing_env).toEqual([]);
    expect(report.scope.join('\n')).toContain(
      "Participant 'researcher' was spawned through mmo_mesh by 'lead'",
    );
    const serverEnv = JSON.parse(
      await readFile(join(world.root, 'files-env.json'), 'utf8'),
    ) as Record<string, string>;
    expect(serverEnv.FILES_TOKEN).toBe(CANARY);

    const text = await smoke(world, true);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/lead\s+root\s+files\s+read\s+read\s+ok/);
    expect(text.stdout).toMatch(/lead\s+root\s+mmo_mesh\s+all 5 tools\s+all 5 tools\s+ok/);
    expect(text.stdout).toMatch(/researcher\s+participant \(by lead\)\s+web\s+note\s+note\s+ok/);
    expect(text.stdout).toMatch(/reviewer\s+native of lead\s+notes\s+add, list\s+add, list\s+ok/);
    expect(text.stdout).not.toMatch(/reviewer\s+native of \S+\s+(files|web)/);
    expect(text.stdout).toContain('What was measured:');
    expect(text.stdout).toContain('Not measured: tool calls');
    expect(text.stdout).toContain('smoke: passed');
    expect(text.stdout + text.stderr).not.toContain(CANARY);
  }, 180_000);

  it('fails on missing tools, a failed required server and missing variables', async () => {
    const world = await makeWorld({
      registry:
        echoServer('files', { tools: 'read', enabled: ['read', 'ghost'] }) +
        echoServer('notes', { envVars: ['NOTES_KEY'] }) +
        echoServer('web', { args: ['--fail'] }) +
        echoServer('keyed', { envVars: ['SCOUT_KEY'] }),
      profile: profileToml('broken-team', 'lead', {
        lead: {
          spawn: ['researcher', 'scout'],
          grants: { files: {}, notes: { required: false } },
        },
        researcher: { grants: { web: {} } },
        scout: { grants: { keyed: {} } },
      }),
    });
    const result = await smoke(world);
    const report = result.json<SmokeReport>();
    expect(result.code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.roles.lead).toMatchObject({
      received: { files: ['read'], notes: ['echo'] },
      missing: { files: ['ghost'] },
    });
    // the broker refused or failed both participants, as it would in a session
    expect(report.roles.researcher).toMatchObject({ via: 'mmo_mesh', measured: false });
    expect(report.roles.researcher?.not_measured_reason).toMatch(
      /spawning it through mmo_mesh from 'lead' failed: .*required MCP servers failed to initialize: web/,
    );
    expect(report.roles.scout?.measured).toBe(false);
    expect(report.roles.scout?.not_measured_reason).toContain('SCOUT_KEY');
    expect(report.servers_failed).toEqual([
      expect.objectContaining({ process: 'researcher', server: 'web', required: true }),
    ]);
    expect(report.missing_env).toEqual([
      { process: 'lead', variable: 'NOTES_KEY', server: 'notes' },
      { process: 'scout', variable: 'SCOUT_KEY', server: 'keyed' },
    ]);
    const codes = report.diagnostics.map((d) => d.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        'smoke-tool-missing',
        'smoke-server-failed',
        'missing-env-var',
        'smoke-role-not-measured',
      ]),
    );
  }, 180_000);

  it("tells a failed server in its own words: a stdio server's masked stderr, an HTTP server's URL and connection error", async () => {
    const stopped = `http://127.0.0.1:${String(await closedPort())}/mcp`;
    const world = await makeWorld({
      registry:
        echoServer('files', {
          args: ['--fail', '--secret-env', 'FILES_TOKEN'],
          envVars: ['FILES_TOKEN'],
        }) + webServer('web', stopped),
      profile: profileToml('failing', 'lead', {
        lead: { grants: { files: { required: false }, web: { required: false } } },
      }),
      credentials: `FILES_TOKEN=${CANARY}\nWEB_TOKEN=${TOKEN}\nWEB_WORKSPACE=${WORKSPACE}\n`,
    });
    const result = await smoke(world);
    const report = result.json<SmokeReport>();
    // servers granted with required = false that cannot start are warnings
    expect(report.ok, result.stdout).toBe(true);
    const failed = Object.fromEntries(report.servers_failed.map((f) => [f.server, f]));
    expect(failed.files).toMatchObject({ process: 'lead', required: false });
    expect(failed.files?.error).toMatch(
      /its stderr ended with: echo-server: None of the specified directories are accessible \(key \*+\)/,
    );
    expect(failed.web?.error).toContain(`server 'web' at ${stopped} could not start`);
    expect(failed.web?.error).toContain('ECONNREFUSED');
    expect(failed.web?.error).not.toMatch(/fetch failed.*fetch failed/);
    const warnings = report.diagnostics.filter((d) => d.code === 'smoke-server-failed');
    expect(warnings.map((d) => d.severity)).toEqual(['warning', 'warning']);
    expect(result.stdout + result.stderr).not.toContain(CANARY);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  }, 180_000);

  it('measures every native role, more than Codex runs at once, a participant of a participant, and one only a native role may spawn', async () => {
    const natives = Array.from({ length: 7 }, (_, k) => `helper${k}`);
    const world = await makeWorld({
      registry: echoServer('notes', { tools: 'list' }),
      profile: profileToml('many', 'lead', {
        lead: { natives, spawn: ['mid'], grants: { notes: {} } },
        mid: { spawn: ['leaf'] },
        leaf: { grants: { notes: {} } },
        ...Object.fromEntries(
          natives.map((n, k) => [
            n,
            { grants: { notes: {} }, ...(k === 0 ? { spawn: ['loner'] } : {}) },
          ]),
        ),
        loner: { grants: { notes: {} } },
      }),
    });
    const result = await smoke(world);
    const report = result.json<SmokeReport>();
    expect(report.ok, JSON.stringify(report.diagnostics)).toBe(true);
    for (const n of natives) {
      expect(report.roles[n]).toMatchObject({ measured: true, received: { notes: ['list'] } });
    }
    // a participant spawns its own participant through mmo_mesh
    expect(report.roles.mid).toMatchObject({
      via: 'mmo_mesh',
      spawned_by: 'lead',
      mesh: { expected: true, measured: true },
    });
    expect(report.roles.leaf).toMatchObject({
      via: 'mmo_mesh',
      spawned_by: 'mid',
      measured: true,
      received: { notes: ['list'] },
    });
    // mmo_mesh honours only a process root's spawn grant, so loner is started on its own
    expect(report.roles.loner).toMatchObject({
      via: 'app-server',
      measured: true,
      received: { notes: ['list'] },
      mesh: { measured: false },
    });
    expect(report.scope.join('\n')).toContain(
      "Participant 'loner' is not in the spawn grant of any process root",
    );
  }, 180_000);

  it('reports a profile that does not compile without running Codex', async () => {
    const world = await makeWorld({ registry: '', profile: 'name = "x"\n' });
    const result = await smoke(world);
    expect(result.code).toBe(1);
    expect(result.json<SmokeReport>().ok).toBe(false);
  });
});
