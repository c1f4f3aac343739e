import { describe, expect, it } from 'vitest';

import { CODEX_DEFAULT_ENV_NAMES, planLaunch } from '../../../src/runtime/upstream/launch-plan.js';
import { maskDeep, maskSecrets } from '../../../src/foundation/diagnostics/mask-secrets.js';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import type { HttpDefinition, StdioDefinition } from '../../../src/config/registry/types.js';

const launchEnv = {
  HOME: '/home/op',
  PATH: '/usr/bin:/bin',
  USER: 'op',
  LANG: 'C.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  SSL_CERT_FILE: '/etc/ssl/cert.pem',
  PIP_CERT: '/etc/ssl/cert.pem',
  AWS_SECRET_ACCESS_KEY: 'canary-aws-never-forwarded',
  UNRELATED: 'canary-unrelated',
  API_TOKEN: 'canary-from-env-token',
};

const credentials = credentialSourceFrom(
  { FILE_ONLY: 'canary-file-secret', API_TOKEN: 'loses-to-env' },
  launchEnv,
  '/cfg/credentials.env',
  true,
);

const ctx = { env: launchEnv, home: '/home/op', cwd: '/work', credentials };

describe('planLaunch (stdio)', () => {
  const definition: StdioDefinition = {
    id: 'srv',
    transport: 'stdio',
    command: 'srv-mcp',
    args: ['--stdio'],
    cwd: '~/data',
    env: { MODE: 'fast', LANG: 'en_US.UTF-8' },
    env_vars: ['API_TOKEN', 'FILE_ONLY', 'NOT_SET_ANYWHERE'],
    enabled_tools: ['a'],
    default_tools_approval_mode: 'prompt',
  };

  it('builds the environment Codex would: defaults, set env_vars, then env overrides', () => {
    const plan = planLaunch(definition, ctx);
    if (plan.launch.transport !== 'stdio') throw new Error('stdio expected');
    expect(plan.launch.env).toEqual({
      HOME: '/home/op',
      PATH: '/usr/bin:/bin',
      USER: 'op',
      LANG: 'en_US.UTF-8',
      SSL_CERT_FILE: '/etc/ssl/cert.pem',
      PIP_CERT: '/etc/ssl/cert.pem',
      API_TOKEN: 'canary-from-env-token',
      FILE_ONLY: 'canary-file-secret',
      MODE: 'fast',
    });
    expect(plan.launch.forwarded).toEqual(['API_TOKEN', 'FILE_ONLY']);
    expect(plan.launch.cwd).toBe('/home/op/data');
    expect(plan.launch.args).toEqual(['--stdio']);
    expect(plan.startupTimeoutMs).toBe(30_000);
    expect(plan.secrets).toEqual(
      expect.arrayContaining(['canary-from-env-token', 'canary-file-secret']),
    );
    expect(plan.secrets).not.toContain('/home/op');
  });

  it('starts in the launch cwd without cwd and honours startup_timeout_sec', () => {
    const rest: StdioDefinition = { ...definition };
    delete (rest as { cwd?: string }).cwd;
    const plan = planLaunch({ ...rest, startup_timeout_sec: 2.5 }, ctx);
    expect(plan.launch.transport === 'stdio' && plan.launch.cwd).toBe('/work');
    expect(plan.startupTimeoutMs).toBe(2500);
  });

  it('passes only names from the measured Codex default list', () => {
    expect(CODEX_DEFAULT_ENV_NAMES).toContain('TMPDIR');
    expect(CODEX_DEFAULT_ENV_NAMES).not.toContain('LC_CTYPE');
    expect(CODEX_DEFAULT_ENV_NAMES).not.toContain('SSL_CERT_DIR');
  });
});

describe('planLaunch (streamable HTTP)', () => {
  const definition: HttpDefinition = {
    id: 'web',
    transport: 'streamable_http',
    url: 'http://127.0.0.1:9/mcp',
    bearer_token_env_var: 'API_TOKEN',
    http_headers: { 'X-Client': 'mmo' },
    env_http_headers: { 'X-Team': 'FILE_ONLY', 'X-Gone': 'NOT_SET_ANYWHERE' },
    enabled_tools: ['a'],
    default_tools_approval_mode: 'prompt',
  };

  it('sends the bearer token and headers from their variables, dropping unset ones', () => {
    const plan = planLaunch(definition, ctx);
    if (plan.launch.transport !== 'streamable_http') throw new Error('http expected');
    expect(plan.launch.headers).toEqual({
      'X-Client': 'mmo',
      'X-Team': 'canary-file-secret',
      Authorization: 'Bearer canary-from-env-token',
    });
    expect(plan.launch.missingBearer).toBe(false);
  });

  it('notes a missing bearer token (Codex does not start the server)', () => {
    const plan = planLaunch({ ...definition, bearer_token_env_var: 'NOT_SET_ANYWHERE' }, ctx);
    expect(plan.launch.transport === 'streamable_http' && plan.launch.missingBearer).toBe(true);
  });
});

describe('maskSecrets', () => {
  it('masks every occurrence, longest secret first', () => {
    expect(maskSecrets('a=abc123 b=abc123xyz c=abc123', ['abc123', 'abc123xyz'])).toBe(
      'a=*** b=*** c=***',
    );
    expect(maskSecrets('nothing here', ['', 'zzz'])).toBe('nothing here');
  });

  it('masks strings and keys inside JSON data', () => {
    expect(maskDeep({ k: ['x-s3cret', { s3cret: 1 }], n: 2 }, ['s3cret'])).toEqual({
      k: ['x-***', { '***': 1 }],
      n: 2,
    });
  });
});
