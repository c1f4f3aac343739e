/**
 * `profile install` and `profile list` through the CLI, in-process.
 */
import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { EXAMPLE_PACK } from '../support/examples.js';
import { tmpDir } from '../support/tmp.js';

const EXAMPLE_CONFIG = join(import.meta.dirname, '..', '..', 'examples', 'config');

async function setup() {
  const base = await tmpDir();
  const pack = join(base, 'research');
  await cp(EXAMPLE_PACK, pack, { recursive: true });
  await cp(EXAMPLE_CONFIG, join(base, 'config'), { recursive: true });
  const env = {
    PATH: process.env.PATH,
    HOME: base,
    CODEX_MMO_DATA_DIR: join(base, 'data'),
    CODEX_MMO_CONFIG_DIR: join(base, 'config'),
  };
  return { base, pack, env, run: (args: string[]) => runCli(args, { env, home: base, cwd: base }) };
}

describe('profile install', () => {
  it('installs, reports unchanged, refuses different content, replaces with --force', async () => {
    const t = await setup();
    const first = await t.run(['profile', 'install', 'research']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('profile research installed at');
    const installed = join(t.base, 'data', 'profiles', 'research');
    expect((await stat(join(installed, 'profile.toml'))).mode & 0o777).toBe(0o400);

    const again = await t.run(['profile', 'install', t.pack, '--json']);
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({
      ok: true,
      status: 'unchanged',
      name: 'research',
      path: installed,
      created: false,
      replaced: false,
      diagnostics: [],
    });

    await writeFile(join(t.pack, 'lead.md'), 'Lead differently.\n');
    const refused = await t.run(['profile', 'install', t.pack]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[pack-exists]');
    expect(refused.stdout).toContain('was not installed');

    const forced = await t.run(['profile', 'install', t.pack, '--force', '--json']);
    expect(forced.code).toBe(0);
    expect(forced.json()).toMatchObject({ status: 'replaced', created: true, replaced: true });
  });

  it('refuses an invalid pack with positioned diagnostics and exit 1', async () => {
    const t = await setup();
    await writeFile(
      join(t.pack, 'profile.toml'),
      'schema_version = 8\nname = "bad"\nroot = "lead"\n[tool_mcp_servers.x]\ncommand = "x"\n',
    );
    const r = await t.run(['profile', 'install', t.pack, '--json']);
    expect(r.code).toBe(1);
    const out = r.json<{ ok: boolean; diagnostics: { code: string; line?: number }[] }>();
    expect(out.ok).toBe(false);
    expect(out.diagnostics.map((d) => d.code)).toContain('pack-defines-servers');
    expect(out.diagnostics.find((d) => d.code === 'pack-defines-servers')?.line).toBe(4);
  });

  it('warns, but installs, when grants do not resolve against the registry', async () => {
    const t = await setup();
    const fragment = join(t.base, 'config', 'tool-mcp.d');
    const { readdir, readFile, rm } = await import('node:fs/promises');
    // narrow the operator's `everything` to one tool and drop the `research` server
    for (const name of await readdir(fragment)) {
      const text = await readFile(join(fragment, name), 'utf8');
      if (text.includes('[research]') || text.includes('.research]')) {
        await rm(join(fragment, name));
      }
    }
    const lead = await readFile(join(t.pack, 'profile.toml'), 'utf8');
    await writeFile(
      join(t.pack, 'profile.toml'),
      lead.replace(
        'enabled_tools = ["echo", "get-sum"]',
        'enabled_tools = ["echo", "no-such-tool"]',
      ),
    );
    const r = await t.run(['profile', 'install', t.pack, '--json']);
    expect(r.code).toBe(0);
    const out = r.json<{
      ok: boolean;
      status: string;
      diagnostics: {
        severity: string;
        code: string;
        line?: number;
        path?: string;
        message: string;
      }[];
    }>();
    expect(out).toMatchObject({ ok: true, status: 'installed' });
    const warnings = out.diagnostics.filter((d) => d.code === 'grant-unresolved');
    expect(warnings.every((d) => d.severity === 'warning')).toBe(true);
    expect(warnings.map((d) => d.path)).toEqual(
      expect.arrayContaining([
        'agents.lead.tool_mcp_servers.everything.enabled_tools[1]',
        'agents.researcher.tool_mcp_servers.research',
      ]),
    );
    expect(warnings.find((d) => d.path?.endsWith('enabled_tools[1]'))?.line).toBe(19);
    const text = await t.run(['profile', 'install', t.pack, '--force']);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain('warning[grant-unresolved]');
    expect(text.stdout).toContain('unchanged');
  });

  it('exits 2 on usage errors and prints help', async () => {
    const t = await setup();
    expect((await t.run(['profile', 'install'])).code).toBe(2);
    expect((await t.run(['profile', 'install', 'a', 'b'])).code).toBe(2);
    expect((await t.run(['profile', 'install', 'a', '--frobnicate'])).code).toBe(2);
    const help = await t.run(['profile', 'install', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--force');
  });
});

describe('profile list', () => {
  it('lists nothing, then the installed pack, as text and JSON', async () => {
    const t = await setup();
    const empty = await t.run(['profile', 'list']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('no profile packs installed');
    expect((await t.run(['profile', 'list', '--json'])).json()).toEqual({ profiles: [] });

    await t.run(['profile', 'install', t.pack]);
    const text = await t.run(['profile', 'list']);
    expect(text.stdout).toMatch(/^NAME\s+STATUS\s+ROOT\s+ROLES\s+DESCRIPTION$/m);
    expect(text.stdout).toMatch(
      /^research\s+ok\s+lead\s+lead, reviewer, researcher\s+Web research/m,
    );
    const json = (await t.run(['profile', 'list', '--json'])).json<{ profiles: unknown[] }>();
    expect(json.profiles).toMatchObject([
      {
        name: 'research',
        valid: true,
        root: 'lead',
        roles: ['lead', 'reviewer', 'researcher'],
        path: join(t.base, 'data', 'profiles', 'research'),
        grants_resolve: true,
      },
    ]);
  });

  it('marks a pack whose grants no longer resolve against the registry', async () => {
    const t = await setup();
    await t.run(['profile', 'install', t.pack]);
    // the operator takes get-sum, which the example's lead is granted, out of enabled_tools
    const fragment = join(t.base, 'config', 'tool-mcp.d', '10-everything.toml');
    const text = await readFile(fragment, 'utf8');
    await writeFile(fragment, text.replace(/^\s*"get-sum",\n/m, ''));
    expect(await readFile(fragment, 'utf8')).not.toContain('"get-sum"');
    const listed = await t.run(['profile', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^research\s+GRANTS\s+lead\s/m);
    expect(listed.stdout).not.toMatch(/^research\s+ok\s/m);
    const json = (await t.run(['profile', 'list', '--json'])).json<{ profiles: unknown[] }>();
    expect(json.profiles).toMatchObject([{ name: 'research', valid: true, grants_resolve: false }]);
  });

  it('exits 1 with a clear diagnostic when the data directory cannot be read', async () => {
    const t = await setup();
    const file = join(t.base, 'not-a-dir');
    await writeFile(file, 'x');
    const r = await t.run(['profile', 'list', '--data-dir', file, '--json']);
    expect(r.code).toBe(1);
    const { diagnostics } = r.json<{ diagnostics: { code: string; message: string }[] }>();
    expect(diagnostics).toMatchObject([{ code: 'io-error' }]);
    expect(diagnostics[0]!.message).toBe(
      `cannot read the installed packs in ${file}/profiles: ENOTDIR: not a directory, scandir '${file}/profiles'`,
    );
  });
});
