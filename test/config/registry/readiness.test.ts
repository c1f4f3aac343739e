import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import {
  checkReadiness,
  locateCommand,
  resolveCommand,
  type ReadinessContext,
} from '../../../src/config/registry/readiness.js';
import type { RegistryEntry, ServerDefinition } from '../../../src/config/registry/types.js';
import { scanKeyPositions } from '../../../src/foundation/toml/key-positions.js';
import { tmpDir } from '../../support/tmp.js';

async function executable(path: string, mode = 0o755): Promise<string> {
  await writeFile(path, '#!/bin/sh\nexit 0\n');
  await chmod(path, mode);
  return path;
}

function entryFrom(
  text: string,
  definition: ServerDefinition,
  file = '/cfg/10-a.toml',
): RegistryEntry {
  return { definition, file, line: 2, column: 1, replaces: [], positions: scanKeyPositions(text) };
}

function ctx(
  env: Record<string, string>,
  file: Record<string, string> = {},
  home = '/home/op',
): ReadinessContext {
  return { env, home, credentials: credentialSourceFrom(file, env, '/cfg/credentials.env', true) };
}

describe('locateCommand', () => {
  it('resolves a bare name through PATH, first executable regular file wins', async () => {
    const dir = await tmpDir();
    await mkdir(join(dir, 'a'));
    await mkdir(join(dir, 'b'));
    await mkdir(join(dir, 'c', 'tool'), { recursive: true }); // a directory named like the tool
    await executable(join(dir, 'a', 'tool'), 0o644); // not executable: skipped
    const good = await executable(join(dir, 'b', 'tool'));
    const env = {
      PATH: [join(dir, 'c'), join(dir, 'a'), 'relative/dir', '', join(dir, 'b')].join(':'),
    };
    expect(await locateCommand('tool', env, '/h')).toEqual({ kind: 'found', path: good });
    expect(await resolveCommand('tool', env, '/h')).toBe(good);
  });

  it('reports not-found and not-executable for bare names', async () => {
    const dir = await tmpDir();
    const plain = await executable(join(dir, 'plain'), 0o644);
    const env = { PATH: dir };
    expect((await locateCommand('absent', env, '/h')).kind).toBe('not-found');
    expect(await locateCommand('plain', env, '/h')).toMatchObject({
      kind: 'not-executable',
      path: plain,
    });
    expect(await resolveCommand('plain', env, '/h')).toBeUndefined();
    expect(await locateCommand('plain', {}, '/h')).toMatchObject({
      kind: 'not-found',
      reason: expect.stringContaining('PATH') as unknown,
    });
  });

  it('ignores relative PATH entries', async () => {
    const dir = await tmpDir();
    await executable(join(dir, 'tool'));
    const rel = relative(process.cwd(), dir);
    expect(rel.startsWith('/')).toBe(false);
    expect((await locateCommand('tool', { PATH: rel }, '/h')).kind).toBe('not-found');
    expect((await locateCommand('tool', { PATH: dir }, '/h')).kind).toBe('found');
  });

  it('checks absolute and ~/ paths for existence and the execute bit', async () => {
    const home = await tmpDir();
    await mkdir(join(home, 'bin'));
    const good = await executable(join(home, 'bin', 'srv'));
    await executable(join(home, 'bin', 'noexec'), 0o600);
    expect(await locateCommand(good, {}, home)).toEqual({ kind: 'found', path: good });
    expect(await locateCommand('~/bin/srv', {}, home)).toEqual({ kind: 'found', path: good });
    expect(await locateCommand('~/bin/missing', {}, home)).toMatchObject({ kind: 'not-found' });
    expect(await locateCommand('~/bin/noexec', {}, home)).toMatchObject({
      kind: 'not-executable',
      reason: 'it has no execute permission',
    });
    expect(await locateCommand('~/bin', {}, home)).toMatchObject({
      kind: 'not-executable',
      reason: 'it is a directory',
    });
    expect((await locateCommand('bin/srv', {}, home)).kind).toBe('not-found');
  });
});

const STDIO_TEXT = `schema_version = 8

[tool_mcp_servers.ida]
transport = "stdio"
command = "ida-mcp"
cwd = "~/work"
env_vars = ["IDA_HOST", "IDA_TOKEN"]
enabled_tools = ["decompile"]
default_tools_approval_mode = "writes"
`;

/** The definition STDIO_TEXT holds. */
const IDA: ServerDefinition = {
  id: 'ida',
  transport: 'stdio',
  command: 'ida-mcp',
  cwd: '~/work',
  env_vars: ['IDA_HOST', 'IDA_TOKEN'],
  enabled_tools: ['decompile'],
  default_tools_approval_mode: 'writes',
};

describe('checkReadiness (stdio)', () => {
  it('is ready when command, cwd and every variable are there, reporting origins only', async () => {
    const home = await tmpDir();
    await mkdir(join(home, 'work'));
    await mkdir(join(home, 'bin'));
    const cmd = await executable(join(home, 'bin', 'ida-mcp'));
    const r = await checkReadiness(
      entryFrom(STDIO_TEXT, IDA),
      ctx(
        { PATH: join(home, 'bin'), IDA_HOST: 'canary-host-value' },
        { IDA_TOKEN: 'canary-token-value' },
        home,
      ),
    );
    expect(r).toEqual({
      server: 'ida',
      ok: true,
      command: { name: 'ida-mcp', resolved: cmd },
      cwd: { path: join(home, 'work'), exists: true },
      variables: [
        { name: 'IDA_HOST', present: true, origin: 'environment' },
        { name: 'IDA_TOKEN', present: true, origin: 'credentials.env' },
      ],
      diagnostics: [],
    });
    expect(JSON.stringify(r)).not.toContain('canary');
  });

  it('reports each problem with its code, naming server and subject, at the key position', async () => {
    const home = await tmpDir();
    const r = await checkReadiness(
      entryFrom(STDIO_TEXT, IDA),
      ctx({ PATH: join(home, 'nowhere'), IDA_HOST: 'h' }, {}, home),
    );
    expect(r.ok).toBe(false);
    expect(r.command).toEqual({ name: 'ida-mcp' });
    expect(r.cwd).toEqual({ path: join(home, 'work'), exists: false });
    expect(r.variables).toEqual([
      { name: 'IDA_HOST', present: true, origin: 'environment' },
      { name: 'IDA_TOKEN', present: false },
    ]);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'command-not-found',
        server: 'ida',
        file: '/cfg/10-a.toml',
        line: 5,
        column: 1,
        path: 'tool_mcp_servers.ida.command',
      }),
      expect.objectContaining({
        code: 'cwd-not-found',
        server: 'ida',
        line: 6,
        column: 1,
        path: 'tool_mcp_servers.ida.cwd',
      }),
      expect.objectContaining({
        code: 'missing-env-var',
        server: 'ida',
        line: 7,
        column: 25,
        path: 'tool_mcp_servers.ida.env_vars[1]',
      }),
    ]);
    const [cmdDiag, , envDiag] = r.diagnostics;
    expect(cmdDiag!.message).toContain("'ida-mcp'");
    expect(cmdDiag!.message).toContain("'ida'");
    expect(envDiag!.message).toContain('IDA_TOKEN');
    expect(envDiag!.message).toContain("'ida'");
    expect(envDiag!.message).toContain('/cfg/credentials.env');
  });

  it('distinguishes a non-executable command and a cwd that is a file', async () => {
    const home = await tmpDir();
    const cmd = await executable(join(home, 'srv'), 0o644);
    await writeFile(join(home, 'afile'), '');
    const definition: ServerDefinition = {
      id: 'x',
      transport: 'stdio',
      command: cmd,
      cwd: join(home, 'afile'),
      enabled_tools: ['t'],
      default_tools_approval_mode: 'auto',
    };
    const r = await checkReadiness(entryFrom('', definition), ctx({}, {}, home));
    expect(r.diagnostics.map((d) => d.code)).toEqual([
      'command-not-executable',
      'cwd-not-a-directory',
    ]);
    expect(r.cwd).toEqual({ path: join(home, 'afile'), exists: false });
    // without positions the diagnostic falls back to the server table's position
    expect(r.diagnostics[0]).toMatchObject({ file: '/cfg/10-a.toml', line: 2, column: 1 });
  });
});

const HTTP_TEXT = `schema_version = 8
[tool_mcp_servers.web]
transport = "streamable_http"
url = "https://mcp.example.com/"
bearer_token_env_var = "WEB_TOKEN"
env_http_headers = { "X-Org" = "WEB_ORG", "X-Token-Again" = "WEB_TOKEN" }
enabled_tools = ["search"]
default_tools_approval_mode = "auto"
`;

describe('checkReadiness (streamable_http)', () => {
  it('checks the bearer token and env header variables once each, and no command', async () => {
    const definition: ServerDefinition = {
      id: 'web',
      transport: 'streamable_http',
      url: 'https://mcp.example.com/',
      bearer_token_env_var: 'WEB_TOKEN',
      env_http_headers: { 'X-Org': 'WEB_ORG', 'X-Token-Again': 'WEB_TOKEN' },
      enabled_tools: ['search'],
      default_tools_approval_mode: 'auto',
    };
    const missing = await checkReadiness(entryFrom(HTTP_TEXT, definition), ctx({}));
    expect(missing.command).toBeUndefined();
    expect(missing.variables).toEqual([
      { name: 'WEB_TOKEN', present: false },
      { name: 'WEB_ORG', present: false },
    ]);
    expect(missing.diagnostics.map((d) => [d.code, d.path, d.line])).toEqual([
      ['missing-env-var', 'tool_mcp_servers.web.bearer_token_env_var', 5],
      ['missing-env-var', 'tool_mcp_servers.web.env_http_headers.X-Org', 6],
    ]);
    const ready = await checkReadiness(
      entryFrom(HTTP_TEXT, definition),
      ctx({ WEB_TOKEN: 'canary-a' }, { WEB_ORG: 'canary-b' }),
    );
    expect(ready.ok).toBe(true);
    expect(JSON.stringify(ready)).not.toContain('canary');
  });
});
