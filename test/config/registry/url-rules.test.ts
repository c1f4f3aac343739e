/**
 * The `url` rules of streamable_http servers: schemes, user info, credential query parameters and
 * token-shaped parts, and plain http only to loopback hosts.
 */
import { describe, expect, it } from 'vitest';

import { checkUrl, isLoopbackHost } from '../../../src/config/registry/url-rules.js';

const codes = (url: string): string[] => checkUrl(url).map((f) => f.code);

describe('checkUrl', () => {
  it.each([
    'https://mcp.example.invalid/',
    'https://mcp.example.invalid:8443/v1/mcp?region=eu&format=json',
    'HTTPS://MCP.EXAMPLE.INVALID/',
    'http://127.0.0.1:8931/mcp',
    'http://127.255.255.254/',
    'http://localhost:3000/',
    'http://LOCALHOST/',
    'http://[::1]:9000/mcp',
    'http://[::ffff:127.0.0.1]/',
    'https://mcp.example.invalid/search?q=task-management',
  ])('accepts %s', (url) => {
    expect(checkUrl(url)).toEqual([]);
  });

  it.each([
    ['ftp://files.example.invalid/', ['invalid-url']],
    ['file:///etc/passwd', ['invalid-url']],
    ['ws://localhost/', ['invalid-url']],
    ['mcp.example.invalid', ['invalid-url']],
    ['', ['invalid-url']],
    ['https://exa mple.invalid/', ['invalid-url']],
    ['https://example.invalid/\n', ['invalid-url']],
    ['http://mcp.example.invalid/', ['insecure-http']],
    ['http://10.0.0.5/', ['insecure-http']],
    ['http://128.0.0.1/', ['insecure-http']],
    ['http://localhost.example.invalid/', ['insecure-http']],
    ['http://[::2]/', ['insecure-http']],
    ['https://user@mcp.example.invalid/', ['url-userinfo']],
    ['https://user:pw@mcp.example.invalid/', ['url-userinfo']],
    ['https://mcp.example.invalid/?token=x', ['url-credential']],
    ['https://mcp.example.invalid/?access_token=x', ['url-credential']],
    ['https://mcp.example.invalid/?Api-Key=x', ['url-credential']],
    ['https://mcp.example.invalid/?apikey=x', ['url-credential']],
    ['https://mcp.example.invalid/?key=x', ['url-credential']],
    ['https://mcp.example.invalid/?secret=x', ['url-credential']],
    ['https://mcp.example.invalid/?password=x', ['url-credential']],
    ['https://mcp.example.invalid/?auth=x', ['url-credential']],
    ['https://mcp.example.invalid/?sig=x&signature=y', ['url-credential', 'url-credential']],
    ['https://mcp.example.invalid/?q=sk-abcdefghijklmnopqrstuvwx', ['url-credential']],
    ['https://mcp.example.invalid/glpat-abcdefghijklmnopqrst/', ['url-credential']],
    [
      'https://mcp.example.invalid/#access=ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      ['url-credential'],
    ],
    ['http://u:p@example.invalid/?token=1', ['url-userinfo', 'url-credential', 'insecure-http']],
  ])('rejects %j', (url, expected) => {
    expect(codes(url)).toEqual(expected);
  });

  it('names a credential parameter but never echoes the URL or a value', () => {
    const secret = 'CANARY_SECRET_7d1e';
    const findings = checkUrl(
      `http://admin:${secret}@example.invalid/${secret}?token=${secret}&q=sk-${secret}abcdefghijkl`,
    );
    expect(findings.length).toBeGreaterThanOrEqual(3);
    for (const f of findings) {
      expect(f.message).not.toContain(secret);
      expect(f.message).not.toContain('admin');
      expect(f.message).not.toContain('example.invalid');
    }
    expect(findings.some((f) => f.message.includes('"token"'))).toBe(true);
  });
});

describe('isLoopbackHost', () => {
  it('knows localhost, 127.0.0.0/8 and ::1', () => {
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('localhost.')).toBe(true);
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('127.1.2.3')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('[::ffff:7f00:1]')).toBe(true);
    expect(isLoopbackHost('127.example.invalid')).toBe(false);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
    expect(isLoopbackHost('[::]')).toBe(false);
  });
});
