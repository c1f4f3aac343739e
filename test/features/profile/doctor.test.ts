/**
 * `doctorProfile`: readiness limited to the profile's servers and graded by `required`, Codex
 * detection, credentials permissions, pins, native-role isolation, and unknown servers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { TEST_CODEX_BIN, TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { doctorProfile } from '../../../src/features/profile/doctor.js';
import { writeLock } from '../../../src/config/lock/lock-file.js';
import {
  customWorkspace,
  exampleWorkspace,
  PATH_WITH_CODEX,
  stdioFragment,
  type Workspace,
} from '../../support/config.js';

function doctor(ws: Workspace, env: Record<string, string | undefined> = {}, nameOrPath = ws.pack) {
  return doctorProfile({
    nameOrPath,
    dirs: ws.dirs,
    cwd: ws.base,
    env: { PATH: PATH_WITH_CODEX, HOME: ws.base, ...env },
    home: ws.base,
  });
}

const PROFILE_TWO_SERVERS = `schema_version = 8
name = "two"
root = "lead"

[agents.lead]
description = "Lead"
instructions = "Lead."
spawn = ["helper"]

[agents.lead.tool_mcp_servers.must]

[agents.helper]
description = "Helper"
instructions = "Help."

[agents.helper.tool_mcp_servers.maybe]
required = false
`;

describe('doctorProfile', () => {
  it('passes the example pack against the example config, no native-role warning once enforced', async () => {
    const ws = await exampleWorkspace();
    const report = await doctor(ws);
    expect(report.ok).toBe(true);
    expect(report.profile).toBe('research');
    expect(report.codex).toMatchObject({ found: true, supported: true });
    expect(report.codex.version?.startsWith(`${TEST_CODEX_SERIES}.`)).toBe(true);
    expect(report.diagnostics.map((d) => d.code)).not.toContain('codex-version-untested');
    expect(report.servers.map((s) => [s.id, s.required, s.ok, s.pinned])).toEqual([
      ['everything', true, true, false],
      ['research', false, true, false],
    ]);
    const codes = report.diagnostics.map((d) => d.code);
    // the native role is narrower than its root: the wire narrows its offer, the gateway its calls
    expect(codes).not.toContain('native-role-not-isolated');
    expect(codes.filter((c) => c === 'server-not-pinned')).toHaveLength(2);
    expect(report.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(report.plan?.processes.map((p) => p.root)).toEqual(['lead', 'researcher']);
  });

  it('grades a missing variable by required: error when required, warning when not, error when both', async () => {
    const ws = await customWorkspace(
      {
        '10-must.toml': stdioFragment('must', { envVars: ['MUST_TOKEN', 'SHARED_TOKEN'] }),
        '20-maybe.toml': stdioFragment('maybe', { envVars: ['MAYBE_TOKEN', 'SHARED_TOKEN'] }),
      },
      PROFILE_TWO_SERVERS,
    );
    const report = await doctor(ws);
    const missing = report.diagnostics.filter((d) => d.code === 'missing-env-var');
    const byVar = Object.fromEntries(
      missing.map((d) => [/variable (\w+)/.exec(d.message)![1]!, d]),
    );
    expect(Object.keys(byVar).sort()).toEqual(['MAYBE_TOKEN', 'MUST_TOKEN', 'SHARED_TOKEN']);
    expect(byVar.MUST_TOKEN!.severity).toBe('error');
    expect(byVar.MAYBE_TOKEN!.severity).toBe('warning');
    expect(byVar.SHARED_TOKEN!.severity).toBe('error');
    expect(byVar.SHARED_TOKEN!.message).toContain('`must`');
    expect(byVar.SHARED_TOKEN!.message).toContain('`maybe`');
    expect(byVar.MUST_TOKEN!.file).toBe(join(ws.dirs.configDir, 'tool-mcp.d', '10-must.toml'));
    expect(byVar.MUST_TOKEN!.line).toBeGreaterThan(1);
    expect(report.ok).toBe(false);
    expect(report.servers.find((s) => s.id === 'must')?.variables).toEqual([
      { name: 'MUST_TOKEN', present: false },
      { name: 'SHARED_TOKEN', present: false },
    ]);
  });

  it('is ok with only a non-required variable missing, and reports where present ones come from', async () => {
    const ws = await customWorkspace(
      {
        '10-must.toml': stdioFragment('must', { envVars: ['MUST_TOKEN'] }),
        '20-maybe.toml': stdioFragment('maybe', { envVars: ['MAYBE_TOKEN'] }),
      },
      PROFILE_TWO_SERVERS,
      'MUST_TOKEN=from-file\n',
    );
    const report = await doctor(ws);
    expect(report.ok).toBe(true);
    expect(
      report.diagnostics.filter((d) => d.code === 'missing-env-var').map((d) => d.severity),
    ).toEqual(['warning']);
    expect(report.servers.find((s) => s.id === 'must')?.variables).toEqual([
      { name: 'MUST_TOKEN', present: true, origin: 'credentials.env' },
    ]);
  });

  it('grades an unresolvable command by required too', async () => {
    const ws = await customWorkspace(
      {
        '10-must.toml': stdioFragment('must'),
        '20-maybe.toml': stdioFragment('maybe', { command: 'no-such-mcp-server-anywhere' }),
      },
      PROFILE_TWO_SERVERS,
    );
    const report = await doctor(ws);
    const notFound = report.diagnostics.find((d) => d.code === 'command-not-found');
    expect(notFound?.severity).toBe('warning');
    expect(report.ok).toBe(true);
    expect(report.servers.find((s) => s.id === 'maybe')?.ok).toBe(false);
  });

  it('fails when Codex cannot be found, saying why that is an error and how to fix it', async () => {
    const ws = await exampleWorkspace();
    const report = await doctor(ws, { PATH: '/nonexistent-bin' });
    expect(report.ok).toBe(false);
    expect(report.codex).toEqual({ found: false });
    const d = report.diagnostics.find((x) => x.code === 'codex-not-found')!;
    expect(d.severity).toBe('error');
    expect(d.message).toContain('--codex-bin');
    expect(d.message).toContain('needs Codex to run sessions');
  });

  it('uses an explicit Codex binary path', async () => {
    const ws = await exampleWorkspace();
    const explicit = {
      ...ws,
      dirs: {
        ...ws.dirs,
        codexBin: TEST_CODEX_BIN,
      },
    };
    const report = await doctor(explicit);
    expect(report.codex.found).toBe(true);
    expect(report.codex.path).toBe(explicit.dirs.codexBin);
  });

  it('warns about a credentials file readable by others', async () => {
    const ws = await exampleWorkspace({ credentialsMode: 0o644 });
    const report = await doctor(ws);
    const d = report.diagnostics.find((x) => x.code === 'credentials-file-permissions');
    expect(d?.severity).toBe('warning');
    expect(report.ok).toBe(true);
  });

  it('reports a grant of an unknown server with a suggestion, and other registry problems only as a count', async () => {
    const ws = await customWorkspace(
      {
        '10-must.toml': stdioFragment('must'),
        '20-maybe.toml': stdioFragment('maybe'),
        '30-broken.toml':
          'schema_version = 8\n[tool_mcp_servers.other]\ntransport = "carrier-pigeon"\n',
      },
      PROFILE_TWO_SERVERS.replace('tool_mcp_servers.must]', 'tool_mcp_servers.must2]'),
    );
    const report = await doctor(ws);
    expect(report.ok).toBe(false);
    const unknown = report.diagnostics.find((d) => d.code === 'unknown-server')!;
    expect(unknown.message).toContain('Did you mean `must`?');
    expect(unknown.line).toBe(10);
    expect(report.diagnostics.some((d) => d.server === 'other')).toBe(false);
    expect(report.diagnostics.find((d) => d.code === 'registry-other-problems')?.severity).toBe(
      'info',
    );
    expect(report.plan).toBeUndefined();
  });

  it('reports the registry errors of a server the profile grants', async () => {
    const ws = await customWorkspace(
      {
        '10-must.toml': stdioFragment('must', { extra: 'bearer_token = "x"\n' }),
        '20-maybe.toml': stdioFragment('maybe'),
      },
      PROFILE_TWO_SERVERS,
    );
    const report = await doctor(ws);
    expect(report.ok).toBe(false);
    expect(
      report.diagnostics.some((d) => d.server === 'must' && d.file?.endsWith('10-must.toml')),
    ).toBe(true);
    expect(report.diagnostics.find((d) => d.code === 'invalid-server-grant')?.message).toContain(
      '10-must.toml',
    );
  });

  it('gives no pin notice for a pinned server', async () => {
    const ws = await exampleWorkspace();
    await writeLock(ws.dirs.configDir, {
      servers: {
        everything: {
          server: 'everything',
          tools: [{ name: 'echo', digest: `sha256:${'a'.repeat(64)}` }],
        },
      },
    });
    const report = await doctor(ws);
    const unpinned = report.diagnostics.filter((d) => d.code === 'server-not-pinned');
    expect(unpinned.map((d) => d.server)).toEqual(['research']);
    expect(report.servers.find((s) => s.id === 'everything')?.pinned).toBe(true);
  });

  it('reports an invalid pack and an unknown profile name', async () => {
    const ws = await exampleWorkspace();
    await writeFile(join(ws.pack, 'profile.toml'), 'schema_version = 8\nname = "x"\n');
    const invalid = await doctor(ws);
    expect(invalid.ok).toBe(false);
    expect(invalid.diagnostics.map((d) => d.code)).toContain('missing-field');
    const unknown = await doctor(ws, {}, 'no-such-profile');
    expect(unknown.ok).toBe(false);
    expect(unknown.diagnostics[0]!.code).toBe('profile-not-found');
  });

  it('checks the valid grants of an invalid pack too, so one run shows every problem', async () => {
    const ws = await exampleWorkspace();
    const file = join(ws.pack, 'profile.toml');
    await writeFile(
      file,
      (await readFile(file, 'utf8'))
        .replace('spawn = ["researcher"]', 'spawn = ["researcher", "ghost"]')
        .replace('enabled_tools = ["echo"]', 'enabled_tools = ["echo", "shout"]'),
    );
    const report = await doctor(ws);
    expect(report.ok).toBe(false);
    expect(report.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual([
      'unknown-role',
      'tool-not-allowed',
    ]);
  });

  it('reports codex-base.toml problems, which would stop compile', async () => {
    const ws = await exampleWorkspace();
    await writeFile(
      join(ws.dirs.configDir, 'codex-base.toml'),
      'model = "gpt-5.6-terra"\n[agents.helper]\ndescription = "x"\n',
    );
    const report = await doctor(ws);
    expect(report.ok).toBe(false);
    expect(report.diagnostics.filter((d) => d.severity === 'error')).toMatchObject([
      {
        code: 'codex-base-owned-key',
        file: join(ws.dirs.configDir, 'codex-base.toml'),
        line: 2,
        path: 'agents.helper',
      },
    ]);
  });
});
