/**
 * buildChildEnv: the child environment is built from a fixed base, Codex's auth variables and
 * exactly the referenced names — values from the launch environment, then credentials.env.
 */
import { describe, expect, it } from 'vitest';

import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import { buildChildEnv, BASE_ENV_NAMES } from '../../../src/runtime/session/child-env.js';

const launch = {
  HOME: '/home/op',
  PATH: '/usr/bin:/bin',
  USER: 'op',
  TERM: 'xterm',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C.UTF-8',
  LC_TIME: 'de_DE.UTF-8',
  https_proxy: 'http://proxy:3128',
  NO_PROXY: 'localhost',
  SSL_CERT_FILE: '/etc/ssl/cert.pem',
  OPENAI_API_KEY: 'sk-launch-openai',
  CODEX_HOME: '/home/op/.codex',
  SECRET_OF_OTHERS: 'unreferenced-canary',
  AWS_SECRET_ACCESS_KEY: 'aws-canary',
  FIRECRAWL_API_KEY: 'launch-firecrawl',
  EMPTY_IN_LAUNCH: '',
};

const credentials = credentialSourceFrom(
  {
    FIRECRAWL_API_KEY: 'file-firecrawl',
    IDA_MCP_TOKEN: 'file-ida',
    EMPTY_IN_LAUNCH: 'file-value',
    CODEX_API_KEY: 'file-codex-key',
    OTHER_PROCESS_TOKEN: 'other-canary',
  },
  launch,
  '/cfg/credentials.env',
  true,
);

describe('buildChildEnv', () => {
  it('keeps the base names and drops everything unreferenced', () => {
    const { env, missing } = buildChildEnv([], launch, credentials);
    expect(env).toEqual({
      HOME: '/home/op',
      PATH: '/usr/bin:/bin',
      USER: 'op',
      TERM: 'xterm',
      LANG: 'en_US.UTF-8',
      LC_ALL: 'C.UTF-8',
      LC_TIME: 'de_DE.UTF-8',
      https_proxy: 'http://proxy:3128',
      NO_PROXY: 'localhost',
      SSL_CERT_FILE: '/etc/ssl/cert.pem',
      OPENAI_API_KEY: 'sk-launch-openai',
      CODEX_API_KEY: 'file-codex-key',
    });
    expect(missing).toEqual([]);
    expect(JSON.stringify(env)).not.toContain('canary');
  });

  it('adds exactly the referenced names: launch environment first, then credentials.env', () => {
    const { env, missing } = buildChildEnv(
      ['FIRECRAWL_API_KEY', 'IDA_MCP_TOKEN', 'EMPTY_IN_LAUNCH', 'NOT_ANYWHERE'],
      launch,
      credentials,
    );
    expect(env.FIRECRAWL_API_KEY).toBe('launch-firecrawl');
    expect(env.IDA_MCP_TOKEN).toBe('file-ida');
    expect(env.EMPTY_IN_LAUNCH).toBe('file-value');
    expect(env.OTHER_PROCESS_TOKEN).toBeUndefined();
    expect(env.SECRET_OF_OTHERS).toBeUndefined();
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(missing).toEqual(['NOT_ANYWHERE']);
  });

  it('sets CODEX_HOME to the private home and never inherits it', () => {
    expect(buildChildEnv([], launch, credentials).env.CODEX_HOME).toBeUndefined();
    expect(
      buildChildEnv(['CODEX_HOME'], launch, credentials, { codexHome: '/s/homes/root' }).env
        .CODEX_HOME,
    ).toBe('/s/homes/root');
  });

  it('treats extra names like referenced names', () => {
    const { env, missing } = buildChildEnv([], launch, credentials, {
      extraNames: ['IDA_MCP_TOKEN', 'AZURE_KEY'],
    });
    expect(env.IDA_MCP_TOKEN).toBe('file-ida');
    expect(missing).toEqual(['AZURE_KEY']);
  });

  it('covers the proxy and CA variables in both cases', () => {
    for (const name of [
      'http_proxy',
      'HTTP_PROXY',
      'all_proxy',
      'ALL_PROXY',
      'no_proxy',
      'SSL_CERT_DIR',
      'NODE_EXTRA_CA_CERTS',
      'REQUESTS_CA_BUNDLE',
      'CURL_CA_BUNDLE',
      'TZ',
      'TMPDIR',
      'SHELL',
      'LOGNAME',
    ]) {
      expect(BASE_ENV_NAMES).toContain(name);
    }
  });
});

describe('base variables that could carry secrets', () => {
  const none = credentialSourceFrom({}, {}, '/none', false);
  it('proxy variables lose their user:password@ part', () => {
    const { env } = buildChildEnv(
      [],
      {
        https_proxy: 'http://user:canary-proxy-pass@proxy.example.invalid:3128',
        HTTP_PROXY: 'user:canary-proxy-pass@proxy.example.invalid:3128',
        ALL_PROXY: 'socks5://proxy.example.invalid:1080',
        NO_PROXY: 'localhost,127.0.0.1',
      },
      none,
    );
    expect(env.https_proxy).toBe('http://proxy.example.invalid:3128');
    expect(env.HTTP_PROXY).toBe('proxy.example.invalid:3128');
    expect(env.ALL_PROXY).toBe('socks5://proxy.example.invalid:1080');
    expect(env.NO_PROXY).toBe('localhost,127.0.0.1');
    expect(JSON.stringify(env)).not.toContain('canary');
  });

  it('LC_* pass only as locale categories holding locale names', () => {
    const { env } = buildChildEnv(
      [],
      {
        LANG: 'en_US.UTF-8',
        LANGUAGE: 'de_DE:en',
        LC_ALL: 'C.UTF-8',
        LC_TIME: 'de_DE@euro',
        LC_SECRET: 'en_US',
        LC_CTYPE: 'canary-sk-abcdefghijklmnop',
        LC_TERMINAL: 'iTerm2',
        LC_MESSAGES: 'x y',
      },
      none,
    );
    expect(env).toMatchObject({
      LANG: 'en_US.UTF-8',
      LANGUAGE: 'de_DE:en',
      LC_ALL: 'C.UTF-8',
      LC_TIME: 'de_DE@euro',
    });
    for (const name of ['LC_SECRET', 'LC_CTYPE', 'LC_TERMINAL', 'LC_MESSAGES']) {
      expect(env[name], name).toBeUndefined();
    }
  });
});
