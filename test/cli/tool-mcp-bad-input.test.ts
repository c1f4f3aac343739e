/**
 * Bad input never crashes a tool-mcp command: every kind of broken fragment file, a missing or
 * non-directory tool-mcp.d, and a fragment of 5 MB each give a diagnostic (file, and line and
 * column where there is one) and exit 1 — in text and JSON form, in-process and in a real
 * process — while the valid fragments next to them still load.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

import { readableCopy } from '../support/readable-copy.js';

import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

const PATH = process.env.PATH ?? '';
const STACK_TRACE = /^\s+at .+:\d+/m;

const good = (id: string): string => `schema_version = 8

[tool_mcp_servers.${id}]
transport = "stdio"
command = "node"
enabled_tools = ["echo"]
default_tools_approval_mode = "auto"
`;

interface Json {
  ok?: boolean;
  diagnostics: { severity: string; code: string; file?: string; line?: number; column?: number }[];
  servers?: { id: string; ok?: boolean }[];
}

/** A config dir with every kind of broken fragment, plus a valid one and a symlink to it. */
async function brokenConfig(): Promise<string> {
  const dir = join(await tmpDir(), 'config');
  const d = join(dir, 'tool-mcp.d');
  await mkdir(join(d, '10-dir.toml'), { recursive: true });
  await writeFile(join(d, '15-good.toml'), good('good'));
  await symlink(join(d, '15-good.toml'), join(d, '16-linked.toml'));
  await writeFile(join(d, '20-empty.toml'), '');
  await writeFile(join(d, '30-huge.toml'), `${good('huge')}# ${'x'.repeat(5 * 1024 * 1024)}\n`);
  await writeFile(join(d, '40-nul.toml'), 'schema_version = 8\u0000\n');
  await writeFile(join(d, '50-latin1.toml'), Buffer.from([0x23, 0x20, 0x63, 0xe9, 0x0a]));
  await writeFile(join(d, '60-syntax.toml'), 'schema_version = = 8\n');
  await symlink(join(d, 'missing'), join(d, '70-dangling.toml'));
  execFileSync('mkfifo', [join(d, '80-fifo.toml')]);
  await symlink(join(d, '91-loop-b.toml'), join(d, '91-loop-a.toml'));
  await symlink(join(d, '91-loop-a.toml'), join(d, '91-loop-b.toml'));
  return dir;
}

/** Code expected for each broken file, with its position (0 where a file has none). */
const EXPECTED: [string, string, number, number][] = [
  ['10-dir.toml', 'fragment-not-a-file', 0, 0],
  ['20-empty.toml', 'schema-version-missing', 1, 1],
  ['30-huge.toml', 'fragment-too-large', 0, 0],
  ['40-nul.toml', 'toml-syntax', 1, 19],
  ['50-latin1.toml', 'invalid-utf8', 1, 4],
  ['60-syntax.toml', 'toml-syntax', 1, 18],
  ['70-dangling.toml', 'fragment-unreadable', 0, 0],
  ['80-fifo.toml', 'fragment-not-a-file', 0, 0],
  ['91-loop-a.toml', 'fragment-unreadable', 0, 0],
];

describe('broken fragments', () => {
  it('are each reported by validate --json at their file and position; the rest loads', async () => {
    const dir = await brokenConfig();
    const r = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', dir], {
      env: { PATH },
    });
    expect(r.code).toBe(1);
    const out = r.json<Json>();
    for (const [file, code, line, column] of EXPECTED) {
      const d = out.diagnostics.find((x) => x.file === join(dir, 'tool-mcp.d', file));
      expect(d, file).toMatchObject({ severity: 'error', code });
      expect([d?.line ?? 0, d?.column ?? 0], file).toEqual([line, column]);
    }
    // the symlinked fragment is read like the file it points to, and replaces its definition
    expect(out.servers).toContainEqual(expect.objectContaining({ id: 'good', ok: true }));
    expect(out.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'server-replaced',
        file: join(dir, 'tool-mcp.d', '16-linked.toml'),
      }),
    );
  });

  it('never make list, show or validate print a stack trace, in text or JSON', async () => {
    const dir = await brokenConfig();
    for (const command of [
      ['list'],
      ['show', 'good'],
      ['show', 'huge'],
      ['validate'],
      ['validate', 'good'],
    ]) {
      for (const json of [[], ['--json']]) {
        const r = await runCli(['tool-mcp', ...command, ...json, '--config-dir', dir], {
          env: { PATH },
        });
        const what = [...command, ...json].join(' ');
        // the broken fragments load after good's: any of them might have redefined it
        expect(r.code, what).toBe(1);
        expect(r.stdout + r.stderr, what).not.toMatch(STACK_TRACE);
        if (json.length > 0) expect(() => r.json<Json>(), what).not.toThrow();
        expect(r.stdout + r.stderr, what).toContain('fragment-too-large');
      }
    }
  });

  it('explain the 5 MB fragment: its size, the limit and what to do', async () => {
    const dir = await brokenConfig();
    const r = await runCli(['tool-mcp', 'list', '--config-dir', dir], { env: { PATH } });
    expect(r.stderr).toContain(
      `${join(dir, 'tool-mcp.d', '30-huge.toml')}: error[fragment-too-large] fragment is 5.0 MiB, over the 1.0 MiB limit; split it into several fragments`,
    );
    // list still shows what did load
    expect(r.stdout).toMatch(
      /^good\s+stdio\s+node\s+echo\s+auto\s+16-linked\.toml \(replaces 15-good\.toml\)$/m,
    );
  });

  it('give diagnostics, not a crash, in a real codex-mmo process', async () => {
    const dir = await brokenConfig();
    const run = promisify(execFile);
    const main = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');
    for (const args of [
      ['validate', '--json'],
      ['show', 'good'],
    ]) {
      const result = await run(
        process.execPath,
        ['--import', 'tsx', main, 'tool-mcp', ...args, '--config-dir', dir],
        { env: { PATH, HOME: dir } },
      ).then(
        () => ({ code: 0, stdout: '', stderr: '' }),
        (error: unknown) => error as { code: number; stdout: string; stderr: string },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).not.toMatch(STACK_TRACE);
      expect(result.stdout + result.stderr).toContain('fragment-too-large');
    }
  }, 30_000);
});

describe('files codex-mmo may not read', () => {
  it('are reported as permission denied, not as a crash', async () => {
    // root reads any file, so as root the command runs as `nobody` to meet a real EACCES
    const asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--'] : [];
    const base = await tmpDir();
    await chmod(base, 0o755);
    const dir = join(base, 'config');
    await mkdir(join(dir, 'tool-mcp.d'), { recursive: true, mode: 0o755 });
    await writeFile(join(dir, 'tool-mcp.d', '10-secret.toml'), good('secret'), { mode: 0o000 });
    await writeFile(join(dir, 'credentials.env'), 'A=1\n', { mode: 0o000 });
    const closed = join(base, 'closed');
    await mkdir(join(closed, 'tool-mcp.d'), { recursive: true });
    await chmod(join(closed, 'tool-mcp.d'), 0o000);
    const main = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');
    // `nobody` runs the built copy every user may read: the checkout may be closed to it
    const cli = asUser.length > 0 ? [readableCopy().cli] : ['--import', 'tsx', main];
    const run = async (config: string): Promise<Json> => {
      const [command = '', ...args] = [
        ...asUser,
        process.execPath,
        ...[...cli, 'tool-mcp', 'validate', '--json', '--config-dir', config],
      ];
      const options = { env: { PATH, HOME: base }, cwd: base };
      const out = await promisify(execFile)(command, args, options).then(
        (r) => r.stdout,
        (error: unknown) => (error as { stdout: string }).stdout,
      );
      return JSON.parse(out) as Json;
    };
    const files = await run(dir);
    expect(files.diagnostics).toEqual([
      expect.objectContaining({
        code: 'fragment-unreadable',
        file: join(dir, 'tool-mcp.d', '10-secret.toml'),
        message: expect.stringContaining('permission denied') as unknown,
      }),
      expect.objectContaining({
        code: 'credentials-file-unreadable',
        message: expect.stringContaining('permission denied') as unknown,
      }),
    ]);
    const listing = await run(closed);
    await chmod(join(closed, 'tool-mcp.d'), 0o755); // so the temporary directory can be removed
    expect(listing.diagnostics).toEqual([
      expect.objectContaining({
        code: 'registry-dir-unreadable',
        message: expect.stringContaining('permission denied') as unknown,
      }),
    ]);
  }, 30_000);
});

describe('the registry directory', () => {
  it('missing: an empty registry, valid; an ID is unknown, and the message says why', async () => {
    const dir = await tmpDir();
    const list = await runCli(['tool-mcp', 'list', '--config-dir', dir], { env: { PATH } });
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(`No Tool MCP servers registered in ${join(dir, 'tool-mcp.d')}.\n`);
    const validate = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', dir]);
    expect(validate.code).toBe(0);
    expect(validate.json<Json>().diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ['info', 'registry-dir-missing'],
    ]);
    const show = await runCli(['tool-mcp', 'show', 'x', '--config-dir', dir]);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain('error[unknown-server]');
    expect(show.stderr).toContain('the registry is empty; add a fragment under tool-mcp.d');
  });

  it('not a directory: an error, also shown when asking for one server', async () => {
    const dir = await tmpDir();
    await writeFile(join(dir, 'tool-mcp.d'), 'oops');
    const list = await runCli(['tool-mcp', 'list', '--config-dir', dir]);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('error[registry-dir-unreadable]');
    expect(list.stderr).toContain('it is not a directory');
    for (const command of ['show', 'probe', 'pin', 'validate']) {
      const r = await runCli(['tool-mcp', command, 'x', '--json', '--config-dir', dir]);
      expect(r.code, command).toBe(1);
      expect(
        r.json<Json>().diagnostics.map((d) => d.code),
        command,
      ).toEqual(['unknown-server', 'registry-dir-unreadable']);
    }
  });
});

describe('a server whose definition is invalid', () => {
  it('is not shown, probed or pinned; its errors are, with what to do', async () => {
    const broken = join(import.meta.dirname, '..', 'fixtures', 'config', 'broken');
    const file = join(broken, 'tool-mcp.d', '20-oauth.toml');
    for (const [command, action] of [
      ['show', 'showing it'],
      ['probe', 'probing it'],
      ['pin', 'pinning it'],
    ] as const) {
      const text = await runCli(['tool-mcp', command, 'gooder', '--config-dir', broken]);
      expect(text.code, command).toBe(1);
      expect(text.stdout, command).toBe('');
      expect(text.stderr).toContain(
        `${file}:6:1: error[oauth-field] tool_mcp_servers.gooder.oauth:`,
      );
      expect(text.stderr).toContain(
        `codex-mmo: the definition of 'gooder' in ${file} is invalid; fix the errors above before ${action}\n`,
      );
      const json = await runCli(['tool-mcp', command, 'gooder', '--json', '--config-dir', broken]);
      expect(json.code, command).toBe(1);
      const out = json.json<Json>();
      expect(out.ok).toBe(false);
      expect(out.diagnostics.map((d) => d.code)).toContain('oauth-field');
    }
  });
});

describe('secret shapes in a definition', () => {
  const SECRETS = [
    'sk-proj-AbCdEfGhIjKlMnOpQrStUv',
    'k3y-value-123',
    'plain-token-value',
    'hunter2',
    'abc123',
    's3cret',
    'XXXXXXXX',
    'abcdefgh12345678',
    'ABCD-EFGH-IJKL',
  ];
  const fixture = join(
    import.meta.dirname,
    '..',
    'fixtures',
    'registry',
    'invalid',
    'secret-shapes',
  );

  async function config(): Promise<string> {
    const dir = join(await tmpDir(), 'config');
    await mkdir(join(dir, 'tool-mcp.d'), { recursive: true });
    const { readFile } = await import('node:fs/promises');
    await writeFile(
      join(dir, 'tool-mcp.d', '10-shapes.toml'),
      await readFile(join(fixture, 'shapes.toml')),
    );
    return dir;
  }

  it('are rejected at their key path, and no command prints a value', async () => {
    const dir = await config();
    const validate = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', dir], {
      env: { PATH },
    });
    expect(validate.code).toBe(1);
    const paths = validate.json<{ diagnostics: { path?: string; code: string }[] }>().diagnostics;
    expect(paths).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'credential-literal-value',
          path: 'tool_mcp_servers.arg_shapes.args[2]',
        }),
        expect.objectContaining({
          code: 'credential-literal-value',
          path: 'tool_mcp_servers.path_shapes.cwd',
        }),
        expect.objectContaining({
          code: 'credential-literal-value',
          path: 'tool_mcp_servers.path_shapes.command',
        }),
        expect.objectContaining({
          code: 'invalid-command',
          path: 'tool_mcp_servers.command_with_args.command',
        }),
      ]),
    );
    for (const command of [
      ['validate'],
      ['validate', '--json'],
      ['validate', 'path_shapes'],
      ['list'],
      ['list', '--json'],
      ['show', 'path_shapes'],
      ['show', 'arg_shapes', '--json'],
    ]) {
      const r = await runCli(['tool-mcp', ...command, '--config-dir', dir], { env: { PATH } });
      expect(r.code, command.join(' ')).toBe(1);
      for (const secret of SECRETS) {
        expect(r.stdout + r.stderr, `${command.join(' ')}: ${secret}`).not.toContain(secret);
      }
    }
  });

  it('look-alikes (--port 8080, --config=/etc/x.toml, a URL without a password) still pass', async () => {
    const dir = join(await tmpDir(), 'config');
    await mkdir(join(dir, 'tool-mcp.d'), { recursive: true });
    const { readFile } = await import('node:fs/promises');
    await writeFile(
      join(dir, 'tool-mcp.d', '10-look-alikes.toml'),
      await readFile(
        join(import.meta.dirname, '..', 'fixtures', 'registry', 'valid', 'look-alikes.toml'),
      ),
    );
    const r = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', dir], {
      env: { PATH },
    });
    const out = r.json<Json>();
    expect(
      out.diagnostics.filter(
        (d) =>
          d.severity === 'error' && d.code !== 'command-not-found' && d.code !== 'cwd-not-found',
      ),
    ).toEqual([]);
    expect(out.servers?.map((s) => s.id)).toEqual(['http_look_alikes', 'look_alikes']);
  });
});

describe('smaller cases', () => {
  it('validate --config-dir of a missing directory says it does not exist (warning, exit 0)', async () => {
    const dir = join(await tmpDir(), 'nonexistent');
    const text = await runCli(['tool-mcp', 'validate', '--config-dir', dir], { env: { PATH } });
    expect(text.code).toBe(0);
    expect(text.stderr).toContain('warning[config-dir-missing]');
    expect(text.stderr).toContain(`the config directory ${dir} does not exist`);
    const json = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', dir]);
    expect(json.json<Json>().diagnostics.map((d) => d.code)).toEqual(['config-dir-missing']);
  });

  it('show exits 1 for a server that is NOT READY', async () => {
    const dir = join(await tmpDir(), 'config');
    await mkdir(join(dir, 'tool-mcp.d'), { recursive: true });
    await writeFile(
      join(dir, 'tool-mcp.d', '10-x.toml'),
      good('absent').replace('command = "node"', 'command = "/nonexistent/bin/srv"'),
    );
    const r = await runCli(['tool-mcp', 'show', 'absent', '--config-dir', dir], { env: { PATH } });
    expect(r.stdout).toContain('NOT READY');
    expect(r.code).toBe(1);
  });
});
