/**
 * prepareSession and processEnvironment (pure): the launch plan's Codex command line, rendered
 * home with the real mmo_mesh command, environment, record and missing-variable diagnostics.
 */
import { describe, expect, it } from 'vitest';

import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import {
  codexArgv,
  prepareSession,
  type PrepareSessionInput,
} from '../../../src/features/session/prepare-session.js';
import {
  baseProviderEnvNames,
  processEnvironment,
} from '../../../src/runtime/session/process-env.js';
import { PROFILE, fixture } from '../../support/plan-fixture.js';

const launchEnv = {
  HOME: '/home/op',
  PATH: '/usr/bin',
  IDA_MCP_TOKEN: 'ida-canary',
  WEB_API_KEY: 'web-canary',
  WEB_WORKSPACE: 'workspace-canary',
  STRAY: 'stray-canary',
};

function input(overrides: Partial<PrepareSessionInput> = {}): PrepareSessionInput {
  const { stored, plan } = fixture();
  return {
    mode: 'exec',
    stored,
    plan,
    sessionId: '20260101T000000000Z-0000abcd',
    sessionDir: '/state/sessions/20260101T000000000Z-0000abcd',
    socketPath: '/state/sessions/20260101T000000000Z-0000abcd/mesh.sock',
    launchEnv,
    credentials: credentialSourceFrom(
      { NOTES_TOKEN: 'notes-canary' },
      launchEnv,
      '/cfg/credentials.env',
      true,
    ),
    home: '/home/op',
    cli: { command: '/usr/bin/node', args: ['/opt/codex-mmo/dist/cli/main.js'] },
    codexBin: '/usr/bin/codex',
    cwd: '/work',
    prompt: 'do it',
    codexArgs: [],
    pid: 4242,
    now: new Date('2026-01-01T00:00:00Z'),
    ...overrides,
  };
}

describe('codexArgv', () => {
  it('runs codex exec outside Git checks, with the prompt after --', () => {
    expect(codexArgv('exec', ['-m', 'o3'], '--looks-like-a-flag')).toEqual([
      'exec',
      '--skip-git-repo-check',
      '-m',
      'o3',
      '--',
      '--looks-like-a-flag',
    ]);
    expect(codexArgv('exec', ['--skip-git-repo-check'], 'p')).toEqual([
      'exec',
      '--skip-git-repo-check',
      '--',
      'p',
    ]);
    expect(codexArgv('run', ['--search'], undefined)).toEqual(['--search']);
  });

  it("puts the version's own-app-server arguments before the user's, once", () => {
    expect(codexArgv('run', ['--search'], undefined, ['--no-daemon'])).toEqual([
      '--no-daemon',
      '--search',
    ]);
    expect(codexArgv('run', ['--no-daemon'], undefined, ['--no-daemon'])).toEqual(['--no-daemon']);
    expect(codexArgv('exec', [], 'p', ['--no-daemon'])).not.toContain('--no-daemon');
  });
});

describe('prepareSession', () => {
  it('plans the root process: home, mesh command, environment, command line and record', () => {
    const plan = prepareSession(input());
    expect(plan.diagnostics).toEqual([]);
    expect(plan.homeDir).toBe('/state/sessions/20260101T000000000Z-0000abcd/homes/lead');
    expect(plan.command).toBe('/usr/bin/codex');
    expect(plan.args).toEqual(['exec', '--skip-git-repo-check', '--', 'do it']);
    expect(plan.env).toEqual({
      HOME: '/home/op',
      PATH: '/usr/bin',
      IDA_MCP_TOKEN: 'ida-canary',
      NOTES_TOKEN: 'notes-canary',
      CODEX_HOME: '/state/sessions/20260101T000000000Z-0000abcd/homes/lead',
      // the marker by which the session finds (and ends) every process it started
      CODEX_MMO_SESSION: '20260101T000000000Z-0000abcd',
    });
    const config = plan.rendered.files.get('config.toml') ?? '';
    expect(config).toContain(
      'args = [ "/opt/codex-mmo/dist/cli/main.js", "mesh", "serve", "--session", "/state/sessions/20260101T000000000Z-0000abcd", "--process", "lead" ]',
    );
    expect(config).toContain('command = "/usr/bin/node"');
    expect([...plan.rendered.files.keys()]).toEqual(['config.toml', 'agents/reviewer.toml']);
    expect(plan.record).toMatchObject({
      format: 'codex-mmo-session/1',
      id: '20260101T000000000Z-0000abcd',
      profile: 'team',
      mode: 'exec',
      status: 'starting',
      pid: 4242,
      started: '2026-01-01T00:00:00.000Z',
      mesh_socket: '/state/sessions/20260101T000000000Z-0000abcd/mesh.sock',
      processes: [{ id: 'root', role: 'lead', kind: 'root', status: 'starting' }],
    });
    expect(JSON.stringify(plan.record)).not.toContain('canary');
    expect(plan.secrets).toEqual(expect.arrayContaining(['ida-canary', 'notes-canary']));
  });

  it('refuses a missing variable of a required grant and warns about an optional one', () => {
    const env = { HOME: '/home/op', PATH: '/usr/bin' };
    const plan = prepareSession(
      input({
        launchEnv: env,
        credentials: credentialSourceFrom({}, env, '/cfg/credentials.env', false),
      }),
    );
    expect(plan.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'missing-env-var',
        server: 'ida',
        message:
          "variable IDA_MCP_TOKEN is not set; server 'ida' needs it and role 'lead' requires that server; set it in /cfg/credentials.env or in the launch environment",
      },
      {
        severity: 'warning',
        code: 'missing-env-var',
        server: 'notes',
        message:
          "variable NOTES_TOKEN is not set; server 'notes' (not required) may fail to start or run without it; set it in /cfg/credentials.env or in the launch environment",
      },
      // what a participant would start without is said at launch too
      {
        severity: 'warning',
        code: 'missing-env-var',
        server: 'web',
        message:
          "participants of role 'researcher': variable WEB_API_KEY is not set; server 'web' (not required) may fail to start or run without it; set it in /cfg/credentials.env or in the launch environment",
      },
      {
        severity: 'warning',
        code: 'missing-env-var',
        server: 'web',
        message: expect.stringContaining(
          "participants of role 'researcher': variable WEB_WORKSPACE is not set",
        ) as unknown,
      },
    ]);
  });
});

describe('prepareSession with participants', () => {
  it('warns at launch about a participant role whose required variable is missing', () => {
    const researcher = PROFILE.agents.researcher!;
    const strict = {
      ...PROFILE,
      agents: {
        ...PROFILE.agents,
        researcher: { ...researcher, grants: { web: { server: 'web', required: true } } },
      },
    };
    const { stored, plan } = fixture({}, strict);
    const env = { HOME: '/home/op', PATH: '/usr/bin', IDA_MCP_TOKEN: 'ida-canary' };
    const prepared = prepareSession(
      input({
        stored,
        plan,
        launchEnv: env,
        credentials: credentialSourceFrom(
          { NOTES_TOKEN: 'notes-canary' },
          env,
          '/cfg/credentials.env',
          true,
        ),
      }),
    );
    expect(
      prepared.diagnostics.map((d) => [d.severity, d.server, d.message.split(':')[0]]),
    ).toEqual([
      ['warning', 'web', "participants of role 'researcher' cannot be spawned in this session"],
      ['warning', 'web', "participants of role 'researcher' cannot be spawned in this session"],
    ]);
    expect(prepared.diagnostics.map((d) => d.message)).toEqual([
      expect.stringContaining('variable WEB_API_KEY is not set'),
      expect.stringContaining('variable WEB_WORKSPACE is not set'),
    ]);
  });
});

describe('processEnvironment', () => {
  it("gives a participant process only its own servers' variables and the provider key", () => {
    const { stored, plan } = fixture({
      model_providers: {
        azure: { env_key: 'AZURE_OPENAI_API_KEY', env_http_headers: { 'X-Org': 'AZURE_ORG' } },
      },
    });
    expect(baseProviderEnvNames(stored.snapshot.base)).toEqual([
      'AZURE_OPENAI_API_KEY',
      'AZURE_ORG',
    ]);
    const researcher = plan.processes.find((p) => p.root === 'researcher');
    if (researcher === undefined) throw new Error('no researcher process');
    const env = { HOME: '/h', IDA_MCP_TOKEN: 'ida-canary', AZURE_OPENAI_API_KEY: 'azure-canary' };
    const result = processEnvironment(
      plan,
      researcher,
      stored.snapshot.base,
      env,
      credentialSourceFrom({ WEB_API_KEY: 'web-canary' }, env, '/cfg/credentials.env', true),
      '/s/homes/researcher-1',
    );
    expect(result.env).toEqual({
      HOME: '/h',
      WEB_API_KEY: 'web-canary',
      AZURE_OPENAI_API_KEY: 'azure-canary',
      CODEX_HOME: '/s/homes/researcher-1',
    });
    expect(result.diagnostics.map((d) => [d.severity, d.server, d.message.split(';')[0]])).toEqual([
      ['warning', 'web', 'variable WEB_WORKSPACE is not set'],
    ]);
    expect(result.secrets.sort()).toEqual(['azure-canary', 'web-canary']);
  });
});
