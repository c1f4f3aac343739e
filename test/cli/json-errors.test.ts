/**
 * Every failure of a command run with --json is one JSON object on stdout,
 * `{"ok": false, "diagnostics": [...]}`: usage errors (exit 2), unknown commands, and the
 * not-found and ambiguous-prefix errors of `session show` and `session stop`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

interface Failure {
  ok: boolean;
  diagnostics: { severity: string; code: string; message: string }[];
}

function expectOneFailure(stdout: string, code: string): Failure {
  const lines = stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const out = JSON.parse(stdout) as Failure;
  expect(out.ok).toBe(false);
  expect(out.diagnostics).toEqual([expect.objectContaining({ severity: 'error', code })]);
  return out;
}

describe('--json failures', () => {
  it.each([
    [['tool-mcp', 'list', '--json', '--bogus']],
    [['tool-mcp', 'show', '--json']],
    [['tool-mcp', 'show', 'a', 'b', '--json']],
    [['profile', 'doctor', '--json']],
    [['session', 'show', '--json']],
    [['snapshot', 'render', '--json']],
    [['exec', 'p', '--json']],
    [['tool-mcp', 'bogus', '--json']],
    [['bogus', '--json']],
    [['session', '--json']],
  ])('usage error %j is one JSON object on stdout, exit 2', async (args) => {
    const dir = await tmpDir();
    const r = await runCli([...args, '--state-dir', dir, '--config-dir', dir]);
    expect(r.code).toBe(2);
    expectOneFailure(r.stdout, 'usage-error');
    expect(r.stderr).toBe('');
  });

  it('session show and stop: not found (exit 1) and ambiguous prefix (exit 2) as JSON', async () => {
    const state = await tmpDir();
    for (const id of ['20260101T000000000Z-aaaaaaaa', '20260101T000000000Z-aaaaaaab']) {
      await mkdir(join(state, 'sessions', id), { recursive: true });
    }
    for (const command of ['show', 'stop']) {
      const missing = await runCli(['session', command, 'nope', '--json', '--state-dir', state]);
      expect(missing.code, command).toBe(1);
      expectOneFailure(missing.stdout, 'not-found');
      const ambiguous = await runCli([
        'session',
        command,
        '20260101T',
        '--json',
        '--state-dir',
        state,
      ]);
      expect(ambiguous.code, command).toBe(2);
      expect(expectOneFailure(ambiguous.stdout, 'usage-error').diagnostics[0]?.message).toContain(
        'matches 2 sessions',
      );
      // without --json the same errors stay text on stderr, with the same exit codes
      const text = await runCli(['session', command, '20260101T', '--state-dir', state]);
      expect([text.code, text.stdout]).toEqual([2, '']);
      expect(text.stderr).toContain('matches 2 sessions');
    }
  });
});
