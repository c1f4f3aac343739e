/**
 * Definition identities and package versions (pure), and the lock format that stores them:
 * what counts as a changed definition, how a change is worded, and that lock_version 1 files
 * (no identity) are still read.
 */
import { describe, expect, it } from 'vitest';

import {
  definitionIdentity,
  identityChanges,
  identityDigest,
} from '../../../src/config/lock/definition-identity.js';
import { parseLock, renderLock, type ServerPin } from '../../../src/config/lock/lock-format.js';
import { packageOf } from '../../../src/config/lock/package-spec.js';
import type { HttpDefinition, StdioDefinition } from '../../../src/config/registry/types.js';

const stdio: StdioDefinition = {
  id: 'fs',
  transport: 'stdio',
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-filesystem@2026.1.14', '/tmp/scratch'],
  env: { MODE: 'ro' },
  env_vars: ['B', 'A'],
  enabled_tools: ['read_file'],
  default_tools_approval_mode: 'prompt',
};

const http: HttpDefinition = {
  id: 'web',
  transport: 'streamable_http',
  url: 'https://mcp.example.com/',
  bearer_token_env_var: 'WEB_TOKEN',
  http_headers: { 'X-Team': 'a' },
  enabled_tools: ['search'],
  default_tools_approval_mode: 'prompt',
};

describe('definition identity', () => {
  it('records what decides the server, never a literal env value', () => {
    const identity = definitionIdentity(stdio, '/usr/bin/npx');
    expect(identity).toMatchObject({
      command: 'npx',
      command_path: '/usr/bin/npx',
      package: '@modelcontextprotocol/server-filesystem@2026.1.14',
      env_vars: ['A', 'B'],
    });
    expect(JSON.stringify(identity)).not.toContain('"ro"');
    expect(definitionIdentity(http)).toEqual({
      transport: 'streamable_http',
      url: 'https://mcp.example.com/',
      env_vars: ['WEB_TOKEN'],
      header_names: ['Authorization', 'X-Team'],
    });
  });

  it('ignores settings that do not decide what runs, and words every change', () => {
    const pinned = definitionIdentity(stdio, '/usr/bin/npx');
    const timeouts = definitionIdentity(
      { ...stdio, tool_timeout_sec: 5, enabled_tools: ['x'] },
      '/usr/bin/npx',
    );
    expect(identityDigest(timeouts)).toBe(identityDigest(pinned));
    expect(identityChanges(pinned, timeouts)).toEqual([]);

    const changed = definitionIdentity(
      {
        ...stdio,
        args: ['-y', '@modelcontextprotocol/server-filesystem@2026.2.0', '/'],
        env: { MODE: 'rw', EXTRA: 'x' },
        env_vars: ['A'],
        cwd: '/srv',
      },
      '/opt/node/bin/npx',
    );
    expect(identityChanges(pinned, changed)).toEqual([
      'command now resolves to /opt/node/bin/npx (pinned: /usr/bin/npx)',
      'package "@modelcontextprotocol/server-filesystem@2026.1.14" → "@modelcontextprotocol/server-filesystem@2026.2.0"',
      'args ["-y","@modelcontextprotocol/server-filesystem@2026.1.14","/tmp/scratch"] → ["-y","@modelcontextprotocol/server-filesystem@2026.2.0","/"]',
      'cwd (none) → "/srv"',
      'env EXTRA added',
      'env MODE changed value',
      'forwarded variables removed B',
    ]);
    // a command that no longer resolves is its own error, not drift of its path
    const unresolved = definitionIdentity(stdio);
    expect(identityChanges(pinned, unresolved)).toEqual([]);
    expect(identityChanges(pinned, definitionIdentity(http))).toEqual([
      'transport stdio → streamable_http',
    ]);
  });
});

describe('package versions read from the command', () => {
  it.each([
    ['npx', ['-y', '@scope/pkg@1.2.3', 'x'], '@scope/pkg', '1.2.3'],
    ['npx', ['--yes', '@scope/pkg'], '@scope/pkg', undefined],
    ['npx', ['-p', 'pkg@2.0.0', 'bin-name'], 'pkg', '2.0.0'],
    ['npx', ['pkg@latest'], 'pkg', undefined],
    ['/usr/local/bin/npx', ['pkg@^1'], 'pkg', '^1'],
    ['npm', ['exec', '--', 'pkg@3.1.0'], 'pkg', '3.1.0'],
    ['pnpm', ['dlx', 'pkg'], 'pkg', undefined],
    ['bunx', ['pkg@1.0.0'], 'pkg', '1.0.0'],
    ['uvx', ['mcp-server-fetch==2025.4.7'], 'mcp-server-fetch', '==2025.4.7'],
    ['uvx', ['--from', 'mcp-server-git>=1.0', 'mcp-server-git'], 'mcp-server-git', '>=1.0'],
    ['uvx', ['mcp-server-fetch'], 'mcp-server-fetch', undefined],
    ['pipx', ['run', 'pkg==1.2'], 'pkg', '==1.2'],
  ])('%s %j → %s %s', (command, args, name, version) => {
    const found = packageOf(command, args);
    expect(found?.name).toBe(name);
    expect(found?.version).toBe(version);
  });

  it('is nothing for other commands', () => {
    expect(packageOf('node', ['server.js'])).toBeUndefined();
    expect(packageOf('npx', ['-y'])).toBeUndefined();
  });
});

describe('the lock stores identities', () => {
  const identity = definitionIdentity(stdio, '/usr/bin/npx');
  const pin: ServerPin = {
    server: 'fs',
    transport: 'stdio',
    serverName: 'secure-filesystem-server',
    serverVersion: '0.6.3',
    definitionDigest: identityDigest(identity),
    definition: identity,
    offeredTools: ['read_file', 'write_file'],
    tools: [{ name: 'read_file', digest: `sha256:${'a'.repeat(64)}` }],
  };

  it('round-trips a pin with its definition and offered tools', () => {
    const text = renderLock({ servers: { fs: pin } });
    expect(text).toContain('lock_version = 3');
    const parsed = parseLock(new TextEncoder().encode(text), '/l');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.lock.servers.fs?.definition).toEqual(JSON.parse(JSON.stringify(identity)));
    expect(renderLock(parsed.lock)).toBe(text);
  });

  it('refuses a definition that does not match its digest', () => {
    const text = renderLock({ servers: { fs: pin } }).replace('"/tmp/scratch"', '"/"');
    const parsed = parseLock(new TextEncoder().encode(text), '/l');
    expect(parsed.lock.servers.fs).toBeUndefined();
    expect(parsed.diagnostics.map((d) => d.code)).toEqual(['lock-file-invalid']);
  });

  it('still reads lock_version 1 files, which had no identity', () => {
    const text = `lock_version = 1\n[servers.fs.tools.read_file]\ndigest = "sha256:${'b'.repeat(64)}"\n`;
    const parsed = parseLock(new TextEncoder().encode(text), '/l');
    expect(parsed.usable).toBe(true);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.lock.servers.fs?.definitionDigest).toBeUndefined();
  });
});
