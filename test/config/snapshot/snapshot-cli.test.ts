/**
 * `snapshot compile|list|show|render` run in-process through the CLI router, with credentials that
 * hold planted canary values which must never appear in any output or stored file.
 */
import {
  chmod,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { runCli } from '../../support/cli.js';
import { tmpDir } from '../../support/tmp.js';
import { FIXTURES } from '../../support/load-fixture.js';

const CANARY = 'sk-CANARYcanary0123456789abcdefXYZ';

interface Setup {
  root: string;
  config: string;
  data: string;
  pack: string;
  cli(args: string[]): ReturnType<typeof runCli>;
}

/** A private copy of the team fixture, with credentials holding canary values. */
async function setup(): Promise<Setup> {
  const root = await tmpDir();
  const config = join(root, 'config');
  const pack = join(root, 'pack');
  const data = join(root, 'data');
  await cp(join(FIXTURES, 'team/config'), config, { recursive: true });
  await cp(join(FIXTURES, 'team/pack'), pack, { recursive: true });
  await writeFile(
    join(config, 'credentials.env'),
    `ALPHA_TOKEN=${CANARY}\nWEB_API_KEY=${CANARY}\nWEB_WORKSPACE=${CANARY}\n`,
    { mode: 0o600 },
  );
  const env = { PATH: process.env.PATH, HOME: '/home/operator', ALPHA_TOKEN: CANARY };
  return {
    root,
    config,
    data,
    pack,
    cli: (args) =>
      runCli([...args, '--config-dir', config, '--data-dir', data], {
        env,
        home: '/home/operator',
        cwd: root,
      }),
  };
}

async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e);
    if ((await stat(path)).isFile()) out.push(path);
  }
  return out;
}

describe('snapshot compile', () => {
  it('compiles, then reports the same id with created:false and rewrites nothing', async () => {
    const s = await setup();
    const first = await s.cli(['snapshot', 'compile', 'pack', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const one = first.json<{ id: string; created: boolean; dir: string }>();
    expect(one.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(one.created).toBe(true);
    const file = join(one.dir, 'snapshot.json');
    const before = await stat(file);

    const second = await s.cli(['snapshot', 'compile', s.pack, '--json']);
    expect(second.code).toBe(0);
    expect(second.json()).toMatchObject({ id: one.id, created: false });
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);

    const text = await s.cli(['snapshot', 'compile', 'pack']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`${one.id}\nalready stored: profile team in ${one.dir}\n`);
  });

  it('never stores or prints a credential value', async () => {
    const s = await setup();
    const compiled = await s.cli(['snapshot', 'compile', 'pack', '--json']);
    const { id } = compiled.json<{ id: string }>();
    const outputs = [
      compiled.stdout + compiled.stderr,
      (await s.cli(['snapshot', 'show', id, '--json'])).stdout,
      (await s.cli(['snapshot', 'show', id])).stdout,
      (await s.cli(['snapshot', 'render', id, '--json'])).stdout,
      (await s.cli(['snapshot', 'render', id, '--process', 'researcher'])).stdout,
      (await s.cli(['snapshot', 'list', '--json'])).stdout,
    ];
    for (const output of outputs) {
      expect(output.length).toBeGreaterThan(0);
      expect(output).not.toContain('CANARY');
    }
    for (const file of await allFiles(s.data)) {
      expect(await readFile(file, 'utf8')).not.toContain('CANARY');
    }
  });

  it('a registry change gives a new id and leaves the old snapshot byte-for-byte unchanged', async () => {
    const s = await setup();
    const old = (await s.cli(['snapshot', 'compile', 'pack', '--json'])).json<{
      id: string;
      dir: string;
    }>();
    const oldFile = join(old.dir, 'snapshot.json');
    const oldBytes = await readFile(oldFile);
    const fragment = join(s.config, 'tool-mcp.d/10-servers.toml');
    await writeFile(
      fragment,
      (await readFile(fragment, 'utf8')).replace('tool_timeout_sec = 90', 'tool_timeout_sec = 95'),
    );
    const fresh = (await s.cli(['snapshot', 'compile', 'pack', '--json'])).json<{
      id: string;
      created: boolean;
    }>();
    expect(fresh.created).toBe(true);
    expect(fresh.id).not.toBe(old.id);
    expect(await readFile(oldFile)).toEqual(oldBytes);

    // a change to a server the profile does not grant changes nothing
    await writeFile(
      fragment,
      (await readFile(fragment, 'utf8')).replace(
        'command = "/usr/bin/unused-mcp"',
        'command = "/usr/bin/other"',
      ),
    );
    expect((await s.cli(['snapshot', 'compile', 'pack', '--json'])).json()).toMatchObject({
      id: fresh.id,
      created: false,
    });
    const list = (await s.cli(['snapshot', 'list', '--json'])).json<{
      snapshots: { id: string }[];
    }>();
    expect(list.snapshots.map((x) => x.id).sort()).toEqual([old.id, fresh.id].sort());
  });

  it('reports a compiler-owned key in codex-base.toml with its position and stores nothing', async () => {
    const s = await setup();
    await writeFile(
      join(s.config, 'codex-base.toml'),
      'model = "m"\n\n[mcp_servers.sneaky]\ncommand = "/bin/sh"\n',
    );
    const result = await s.cli(['snapshot', 'compile', 'pack']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${join(s.config, 'codex-base.toml')}:3:2: error[codex-base-owned-key] mcp_servers:`,
    );
    expect(result.stdout).toBe('');
    await expect(stat(join(s.data, 'snapshots'))).rejects.toThrow();
  });

  it('reports grant errors and unknown profiles', async () => {
    const s = await setup();
    const profile = join(s.pack, 'profile.toml');
    await writeFile(
      profile,
      (await readFile(profile, 'utf8')).replace(
        '[agents.lead.tool_mcp_servers.alpha]\nenabled_tools = ["read"]',
        '[agents.lead.tool_mcp_servers.alpha]\nenabled_tools = ["read", "rm-rf"]',
      ),
    );
    const bad = await s.cli(['snapshot', 'compile', 'pack', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.json<{ ok: boolean; diagnostics: { code: string }[] }>()).toMatchObject({
      ok: false,
      diagnostics: [{ code: 'sandbox-reads-unrestricted' }, { code: 'tool-not-allowed' }],
    });
    // a pack error does not hide the grant errors: one run reports both
    await writeFile(profile, `${await readFile(profile, 'utf8')}\n[agents.scribe.extra]\n`);
    const both = await s.cli(['snapshot', 'compile', 'pack', '--json']);
    expect(both.code).toBe(1);
    expect(
      both
        .json<{ diagnostics: { code: string; path: string }[] }>()
        .diagnostics.map((d) => [d.code, d.path]),
    ).toEqual([
      ['unknown-key', 'agents.scribe.extra'],
      ['sandbox-reads-unrestricted', 'agents.researcher.permissions'],
      ['tool-not-allowed', 'agents.lead.tool_mcp_servers.alpha.enabled_tools[1]'],
    ]);
    await expect(stat(join(s.data, 'snapshots'))).rejects.toThrow();
    const missing = await s.cli(['snapshot', 'compile', 'no-such-profile']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/error\[profile-not-found\]/);
    expect((await s.cli(['snapshot', 'compile'])).code).toBe(2);
  });
});

describe('snapshot list / show', () => {
  it('lists and shows stored snapshots by unique prefix', async () => {
    const s = await setup();
    const empty = await s.cli(['snapshot', 'list']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/no snapshots stored/);
    const { id } = (await s.cli(['snapshot', 'compile', 'pack', '--json'])).json<{ id: string }>();
    const list = await s.cli(['snapshot', 'list']);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+PROFILE\s+ROOT\s+ROLES\s+SERVERS\s+STORED$/);
    expect(list.stdout).toContain(`${id.slice(0, 23)}  team`);

    const prefix = id.slice(7, 15);
    const shown = await s.cli(['snapshot', 'show', prefix, '--json']);
    expect(shown.code).toBe(0);
    const json = shown.json<{
      id: string;
      snapshot: { profile: { name: string } };
      plan: { processes: { root: string }[] };
    }>();
    expect(json.id).toBe(id);
    expect(json.snapshot.profile.name).toBe('team');
    expect(json.plan.processes.map((p) => p.root)).toEqual(['lead', 'researcher']);

    const text = await s.cli(['snapshot', 'show', `sha256:${prefix}`]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Profile team (root lead)');
    expect(text.stdout).toMatch(
      /lead: roles lead, reviewer, scribe; servers alpha, notes; mesh yes/,
    );
    expect(text.stdout).toContain(
      'Base settings: agents, approval_policy, model, model_reasoning_effort, shell_environment_policy',
    );

    const unknown = await s.cli(['snapshot', 'show', 'ffffffffffffff0', '--json']);
    expect(unknown.code).toBe(1);
    expect(unknown.json()).toMatchObject({ ok: false, diagnostics: [{ code: 'not-found' }] });
    // a malformed id is a usage error: exit 2, for show and render alike
    for (const command of ['show', 'render']) {
      const malformed = await s.cli(['snapshot', command, 'not-an-id', '--json']);
      expect(malformed.code).toBe(2);
      expect(malformed.json()).toMatchObject({ ok: false, diagnostics: [{ code: 'usage-error' }] });
    }
  });

  it('refuses a tampered snapshot in show, render and list', async () => {
    const s = await setup();
    const { id, dir } = (await s.cli(['snapshot', 'compile', 'pack', '--json'])).json<{
      id: string;
      dir: string;
    }>();
    await chmod(dir, 0o755);
    const file = join(dir, 'snapshot.json');
    await chmod(file, 0o644);
    await writeFile(file, (await readFile(file, 'utf8')).replace('"read-only"', '"full-access"'));
    for (const args of [
      ['snapshot', 'show', id],
      ['snapshot', 'render', id],
    ]) {
      const result = await s.cli(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /error\[integrity-error\] snapshot sha256:[0-9a-f]+ was modified after it was stored/,
      );
      expect(result.stdout).toBe('');
    }
    const list = await s.cli(['snapshot', 'list']);
    expect(list.code).toBe(1);
    expect(list.stdout).toContain('DAMAGED');
  });
});

describe('snapshot render', () => {
  it('prints the root process by default, and a chosen process with --process', async () => {
    const s = await setup();
    const { id } = (await s.cli(['snapshot', 'compile', 'pack', '--json'])).json<{ id: string }>();
    const printed = await s.cli(['snapshot', 'render', id.slice(0, 12)]);
    expect(printed.code).toBe(0);
    const sections = printed.stdout.split(/^# ==> (.+) <==$/m);
    expect(sections.filter((_, k) => k % 2 === 1)).toEqual([
      'config.toml',
      'agents/reviewer.toml',
      'agents/scribe.toml',
    ]);
    expect(parse(sections[2]!)).toMatchObject({ developer_instructions: 'You lead the team.' });

    const json = await s.cli(['snapshot', 'render', id, '--process', 'researcher', '--json']);
    const rendered = json.json<{ process: string; files: Record<string, string> }>();
    expect(rendered.process).toBe('researcher');
    expect(Object.keys(rendered.files)).toEqual(['config.toml']);
    expect(parse(rendered.files['config.toml']!)).toMatchObject({
      sandbox_mode: 'danger-full-access',
    });

    const wrong = await s.cli(['snapshot', 'render', id, '--process', 'scribe']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /role 'scribe' of profile 'team' is a native role inside the Codex process of 'lead'/,
    );
  });

  it('writes config.toml and agents/ with --out, refusing stray role files', async () => {
    const s = await setup();
    const { id } = (await s.cli(['snapshot', 'compile', 'pack', '--json'])).json<{ id: string }>();
    const out = join(s.root, 'home');
    const written = await s.cli(['snapshot', 'render', id, '--out', 'home', '--json']);
    expect(written.code).toBe(0);
    expect(written.json()).toMatchObject({
      id,
      process: 'lead',
      dir: out,
      files: ['config.toml', 'agents/reviewer.toml', 'agents/scribe.toml'],
    });
    expect(parse(await readFile(join(out, 'agents/scribe.toml'), 'utf8'))).toMatchObject({
      name: 'scribe',
    });
    // rendering again into the same directory is fine
    expect((await s.cli(['snapshot', 'render', id, '--out', out])).code).toBe(0);

    await mkdir(join(out, 'agents/old'), { recursive: true });
    await writeFile(join(out, 'agents/old/ghost.toml'), 'name = "ghost"\n');
    const notDir = join(s.root, 'a-file');
    await writeFile(notDir, 'x');
    const onFile = await s.cli(['snapshot', 'render', id, '--out', notDir]);
    expect(onFile.code).toBe(1);
    expect(onFile.stderr).toContain(`error[io-error] ${notDir} is not a directory`);
    const refused = await s.cli(['snapshot', 'render', id, '--out', out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /agents\/old\/ghost\.toml is not part of this rendering, and Codex would load it as a role/,
    );
  });
  it('refuses to overwrite or write through a symbolic link in --out unless --force', async () => {
    const s = await setup();
    const { id } = (await s.cli(['snapshot', 'compile', 'pack', '--json'])).json<{ id: string }>();
    const out = join(s.root, 'mine');
    await mkdir(out);
    await writeFile(join(out, 'config.toml'), 'model = "my own"\n');
    const refused = await s.cli(['snapshot', 'render', id, '--out', out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${join(out, 'config.toml')} already exists`);
    expect(refused.stderr).toContain('--force');
    expect(await readFile(join(out, 'config.toml'), 'utf8')).toBe('model = "my own"\n');
    expect(await readdir(out)).toEqual(['config.toml']);
    const forced = await s.cli(['snapshot', 'render', id, '--out', out, '--force']);
    expect(forced.code).toBe(0);
    expect(parse(await readFile(join(out, 'config.toml'), 'utf8'))).toMatchObject({
      developer_instructions: 'You lead the team.',
    });

    // a symlinked config.toml and a symlinked agents/ lead outside: never written through
    const outside = join(s.root, 'outside');
    await mkdir(join(outside, 'agents'), { recursive: true });
    await writeFile(join(outside, 'config.toml'), 'precious = true\n');
    const linked = join(s.root, 'linked');
    await mkdir(linked);
    await symlink(join(outside, 'config.toml'), join(linked, 'config.toml'));
    await symlink(join(outside, 'agents'), join(linked, 'agents'));
    const viaLink = await s.cli(['snapshot', 'render', id, '--out', linked, '--json']);
    expect(viaLink.code).toBe(1);
    expect(viaLink.stdout).toContain('symbolic link');
    for (const force of [[], ['--force']]) {
      await s.cli(['snapshot', 'render', id, '--out', linked, ...force]);
      expect(await readFile(join(outside, 'config.toml'), 'utf8')).toBe('precious = true\n');
      expect(await readdir(join(outside, 'agents'))).toEqual([]);
    }
    expect((await lstat(join(linked, 'config.toml'))).isFile()).toBe(true);
    expect((await lstat(join(linked, 'agents'))).isDirectory()).toBe(true);
    expect(await readdir(join(linked, 'agents'))).toEqual(['reviewer.toml', 'scribe.toml']);
  });
});
