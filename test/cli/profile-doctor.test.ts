/**
 * `profile doctor` through the CLI: exit codes, JSON shape, the native-role statement, and a
 * canary check that no credential value reaches any output of `show` or `doctor`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { TEST_CODEX_SERIES } from '../support/codex-bin.js';

import { exampleCli, PATH_WITH_CODEX } from '../support/config.js';
import { EXAMPLE_PACK } from '../support/examples.js';

const FILE_CANARY = 'sk-canaryFILE0123456789abcdefghij';
const ENV_CANARY = 'ghp_canaryENV0123456789abcdefghijklmnop';
const WORKSPACE_CANARY = 'canary-workspace-7f3a9c';

const setup = (credentials?: string) =>
  exampleCli({ path: PATH_WITH_CODEX, ...(credentials !== undefined ? { credentials } : {}) });

describe('profile doctor', () => {
  it('exits 0 for the example, with the docs/design.md §7 JSON fields; its native role is enforced, so not warned about', async () => {
    const t = await setup();
    const r = await t.run(['profile', 'doctor', EXAMPLE_PACK, '--json']);
    expect(r.code).toBe(0);
    const report = r.json<{
      ok: boolean;
      diagnostics: { code: string; severity: string; message: string }[];
    }>();
    expect(report.ok).toBe(true);
    // the reviewer's grants are a subset of the lead's: the model wire and the gateway enforce them
    expect(report.diagnostics.map((d) => d.code)).not.toContain('native-role-not-isolated');
    expect(report.diagnostics.map((d) => d.code)).toContain('native-role-shares-environment');
    expect(report.diagnostics.map((d) => d.code)).not.toContain('codex-version-untested');
  });

  it('prints readable text with the server table and a verdict', async () => {
    const t = await setup();
    const r = await t.run(['profile', 'doctor', EXAMPLE_PACK]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^codex: .*codex \\(version ${TEST_CODEX_SERIES.replace('.', '\\.')}\\.\\d+\\)$`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(
      /^everything\s+stdio\s+yes\s+lead, reviewer, researcher\s+ready\s+no\s+EVERYTHING_API_TOKEN \(credentials\.env\)$/m,
    );
    expect(r.stdout).toContain('doctor: no errors');
    expect(r.stderr).not.toContain('native-role-not-isolated');
  });

  it('exits 1 when a required variable is missing or Codex is absent', async () => {
    const t = await setup('RESEARCH_API_TOKEN=x\nRESEARCH_WORKSPACE_ID=y\n');
    const missing = await t.run(['profile', 'doctor', EXAMPLE_PACK]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/error\[missing-env-var\].*EVERYTHING_API_TOKEN/);
    expect(missing.stdout).toContain('doctor: problems found');

    const noCodex = await setup();
    const r = await noCodex.run([
      'profile',
      'doctor',
      EXAMPLE_PACK,
      '--codex-bin',
      join(t.base, 'no-codex'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[codex-not-found]');
    expect(r.stdout).toContain('codex: NOT FOUND');
  });

  it('exits 2 on a usage error', async () => {
    const t = await setup();
    expect((await t.run(['profile', 'doctor'])).code).toBe(2);
  });
});

describe('no credential value in any output', () => {
  it('keeps planted canaries out of show and doctor, text and JSON', async () => {
    const t = await setup(
      `EVERYTHING_API_TOKEN=${FILE_CANARY}\nRESEARCH_WORKSPACE_ID=${WORKSPACE_CANARY}\n`,
    );
    // also planted in the launch environment, which wins over the file
    const extra = { RESEARCH_API_TOKEN: ENV_CANARY };
    await t.run(['profile', 'install', EXAMPLE_PACK]);
    const commands = [
      ['profile', 'show', 'research'],
      ['profile', 'show', 'research', '--json'],
      ['profile', 'show', 'research', '--resolved'],
      ['profile', 'show', 'research', '--resolved', '--json'],
      ['profile', 'doctor', 'research'],
      ['profile', 'doctor', 'research', '--json'],
      ['profile', 'list', '--json'],
    ];
    for (const args of commands) {
      const r = await t.run(args, extra);
      expect(r.code, args.join(' ')).toBe(0);
      const output = r.stdout + r.stderr;
      for (const canary of [FILE_CANARY, ENV_CANARY, WORKSPACE_CANARY]) {
        expect(output, args.join(' ')).not.toContain(canary);
      }
    }
    // the variables are reported as present, by name and origin only
    const doctor = await t.run(['profile', 'doctor', 'research', '--json'], extra);
    const servers = doctor.json<{ servers: { id: string; variables: unknown[] }[] }>().servers;
    expect(servers.find((s) => s.id === 'research')?.variables).toEqual([
      { name: 'RESEARCH_API_TOKEN', present: true, origin: 'environment' },
      { name: 'RESEARCH_WORKSPACE_ID', present: true, origin: 'credentials.env' },
    ]);
  });
});
