/** The Codex arguments `exec` carries over to its root's app-server, and the ones it refuses. */
import { describe, expect, it } from 'vitest';

import { parseExecCodexArgs } from '../../../src/features/session/exec-arguments.js';

describe('parseExecCodexArgs', () => {
  it('carries -c and -m over and accepts --skip-git-repo-check', () => {
    expect(
      parseExecCodexArgs(['-c', 'a=1', '--config=b="x"', '-m', 'o3', '--skip-git-repo-check']),
    ).toEqual({ ok: true, overrides: { config: ['a=1', 'b="x"'], model: 'o3' } });
    expect(parseExecCodexArgs([])).toEqual({ ok: true, overrides: { config: [] } });
  });

  it('refuses other options and missing values with a message', () => {
    const other = parseExecCodexArgs(['--full-auto']);
    expect(other.ok).toBe(false);
    expect(other.ok ? '' : other.message).toContain("'--full-auto' is not supported by exec");
    expect(parseExecCodexArgs(['-c']).ok).toBe(false);
  });
});
