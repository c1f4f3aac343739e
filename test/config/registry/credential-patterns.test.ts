/**
 * Which names and values count as credentials: every documented pattern matches, and ordinary
 * configuration names and values do not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  hasCredentialShape,
  isCredentialName,
  isCredentialQueryName,
  isCredentialValue,
  secretArgIndexes,
} from '../../../src/config/registry/credential-patterns.js';

describe('isCredentialName', () => {
  it.each([
    'GITHUB_TOKEN',
    'github_token',
    'SearchAuthToken',
    'CLIENT_SECRET',
    'DB_PASSWORD',
    'db_passwd',
    'GPG_PASSPHRASE',
    'OPENAI_API_KEY',
    'MY_APIKEY',
    'SSH_PRIVATE_KEY',
    'GCP_CREDENTIALS',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_ACCESS_KEY_ID',
    'STRIPE_KEY',
    'DB_PASS',
    'GITHUB_PAT',
    'Authorization',
    'authorization',
    'Proxy-Authorization',
    'Cookie',
    'Set-Cookie',
    'X-Api-Key',
    'x-api-key',
    'X-Auth-Token',
    'X-Auth',
    'Ocp-Apim-Subscription-Key',
  ])('%s is a credential name', (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each([
    'LOG_LEVEL',
    'HOME',
    'PATH',
    'PWD',
    'LANG',
    'HTTPS_PROXY',
    'AUTHOR_NAME',
    'KEYBOARD_LAYOUT',
    'SSH_KEY_PATH',
    'MONKEY',
    'Accept-Language',
    'X-Request-Source',
    'Content-Type',
    'PASSTHROUGH',
    'COMPATIBILITY',
  ])('%s is not a credential name', (name) => {
    expect(isCredentialName(name)).toBe(false);
  });
});

describe('isCredentialQueryName', () => {
  it.each([
    'token',
    'access_token',
    'key',
    'api_key',
    'apikey',
    'api-key',
    'secret',
    'client_secret',
    'password',
    'sig',
    'signature',
    'auth',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'X-Amz-Security-Token',
    'jwt',
  ])('%s is a credential query parameter', (name) => {
    expect(isCredentialQueryName(name)).toBe(true);
  });

  it.each(['q', 'format', 'region', 'page', 'limit', 'lang', 'keyword'])(
    '%s is not a credential query parameter',
    (name) => {
      expect(isCredentialQueryName(name)).toBe(false);
    },
  );
});

describe('isCredentialValue', () => {
  it.each([
    ['OpenAI', 'sk-proj-AbCdEfGhIjKlMnOpQrStUv'],
    ['OpenAI legacy', 'sk-abcdefghijklmnopqrstuvwxyz012345'],
    ['Anthropic', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz'],
    ['Stripe', 'sk_live_abcdefghijklmnop1234'],
    ['GitHub ghp', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['GitHub gho', 'gho_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['GitHub ghu', 'ghu_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['GitHub ghs', 'ghs_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['GitHub ghr', 'ghr_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['GitHub fine-grained', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop'],
    ['Slack bot', 'xoxb-123456789012-abcdefghijkl'],
    ['Slack user', 'xoxp-1234567890-abcdefghij'],
    ['Slack app', 'xoxa-2-abcdefghijkl'],
    ['Slack refresh', 'xoxr-abcdefghijkl'],
    ['Slack legacy', 'xoxs-abcdefghijkl'],
    ['AWS access key', 'AKIAIOSFODNN7EXAMPLE'],
    ['AWS session key', 'ASIAIOSFODNN7EXAMPLE'],
    ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl'],
    ['Bearer header', 'Bearer abcdef123456'],
    ['bearer lowercase', 'bearer abcdef123456'],
    ['Basic header', 'Basic dXNlcjpwYXNzd29yZA=='],
    ['GitLab', 'glpat-abcdefghijklmnopqrst'],
    ['Google', 'AIzaSyA-abcdefghijklmnopqrstuvwxyz12345'],
    ['npm', 'npm_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['Hugging Face', 'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH'],
    ['PEM RSA', '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----'],
    ['PEM PKCS8', '-----BEGIN PRIVATE KEY-----'],
    ['PEM OpenSSH', '-----BEGIN OPENSSH PRIVATE KEY-----'],
    ['embedded', '--token=ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
  ])('%s looks like a credential', (_label, value) => {
    expect(isCredentialValue(value)).toBe(true);
  });

  it.each([
    '',
    'info',
    'C.UTF-8',
    '/usr/local/bin/server',
    'task-management-server-abcdefgh',
    'disk-usage-report-generator',
    'https://mcp.example.invalid/',
    'Basic',
    'Basic usage',
    'ghp_short',
    'AKIA',
    'eyJ',
    '-----BEGIN PUBLIC KEY-----',
    '-----BEGIN CERTIFICATE-----',
    'sk-short',
    'risk-assessment-tool-v2-final',
  ])('%j is an ordinary value', (value) => {
    expect(isCredentialValue(value)).toBe(false);
  });

  // catastrophic backtracking would not finish these within the test's timeout
  it('decides long adversarial values (no catastrophic backtracking)', { timeout: 60_000 }, () => {
    const long = `${'a-'.repeat(1_000_000)}x`;
    expect(isCredentialValue(long)).toBe(false);
    expect(isCredentialValue(`eyJ${'a'.repeat(1_000_000)}`)).toBe(false);
    expect(isCredentialValue(`Bearer ${' '.repeat(100_000)}`)).toBe(false);
  });
});

describe('secret shapes inside values', () => {
  it.each([
    'postgres://app:s3cret@db.example.invalid/app',
    'redis://:s3cret@cache.example.invalid:6379',
    '--api-key=k3y-value',
    '--password=hunter2',
    'API_TOKEN=abc123',
    'mode=fast;auth=Bearer abcdefgh12345678',
    'Authorization: Bearer abcdefgh12345678',
    'https://hooks.slack.com/services/T000/B000/XXXXXXXX',
    'https://discord.com/api/webhooks/123456/abcdef',
    'https://discordapp.com/api/webhooks/123456/abcdef',
    'https://example.webhook.office.com/webhookb2/abc',
    'https://hooks.zapier.com/hooks/catch/123/abc/',
    'https://api.telegram.org/bot123456:ABCdef/sendMessage',
    'https://mcp.example.invalid/mcp#token=abc123',
    'https://mcp.example.invalid/mcp;api_key=abc123',
  ])('%j carries a secret', (value) => {
    expect(isCredentialValue(value)).toBe(true);
  });

  it.each([
    'postgres://app@db.example.invalid/app',
    'https://db.example.invalid:5432/app',
    '--config=/etc/x.toml',
    '--token-file=/run/secrets/token',
    '--key-path=/etc/ssl/key.pem',
    'LOG_LEVEL=debug',
    'password=',
    'https://example.invalid/docs#section=auth',
    'https://hooks.example.invalid/services/x',
  ])('%j is an ordinary value', (value) => {
    expect(isCredentialValue(value)).toBe(false);
  });

  it('pairs a secret-naming flag with the next argument and reports indexes only', () => {
    expect(
      secretArgIndexes([
        '--port',
        '8080',
        '--token',
        'plain',
        '--config=/etc/x.toml',
        '--password=x',
        '--token-file',
        '/run/t',
        '--no-auth',
        'serve',
        '--api-key',
        '--verbose',
        'API_TOKEN=v',
      ]),
    ).toEqual([3, 5, 12]);
    expect(secretArgIndexes(['--auth', 'hunter2', '-k', 'x'])).toEqual([1]);
    expect(secretArgIndexes([])).toEqual([]);
  });

  it('names X-License and similar headers as credentials', () => {
    expect(isCredentialName('X-License')).toBe(true);
    expect(isCredentialName('X-License-Key')).toBe(true);
    expect(isCredentialName('X-Client')).toBe(false);
  });

  it('decides a long value full of assignments', { timeout: 60_000 }, () => {
    expect(isCredentialValue('a=b;'.repeat(500_000))).toBe(false);
  });
});

describe('the short-word shortcut of isCredentialValue', () => {
  const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';
  const prefixes = [
    'sk-',
    'sk_live_',
    'ghp_',
    'xoxb-',
    'xapp-',
    'AKIA',
    'eyJ',
    'glpat-',
    'AIza',
    'hf_',
    'npm_',
    'ATATT',
    'pypi-',
    'lin_api_',
    'dop_v1_',
    'shpat_',
  ];
  it('skips only words no pattern can match: every pattern agrees on words under 15 characters', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', ...prefixes),
        fc.string({ unit: fc.constantFrom(...Array.from(WORD)), maxLength: 14 }),
        (prefix, rest) => {
          const word = `${prefix}${rest}`.slice(0, 14);
          expect(hasCredentialShape(word)).toBe(false);
          expect(isCredentialValue(word)).toBe(false);
        },
      ),
      { numRuns: 5000 },
    );
  });
  it('still finds the shortest token shapes at 15 characters', () => {
    for (const token of ['xoxb-1234567890', 'xapp-1234567890']) {
      expect(token).toHaveLength(15);
      expect(isCredentialValue(token)).toBe(true);
    }
  });
});
