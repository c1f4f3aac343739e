import { describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';

describe('router', () => {
  it('prints top-level help listing every command group', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const group of ['tool-mcp list', 'profile doctor', 'snapshot compile', 'exec']) {
      expect(r.stdout).toContain(group);
    }
  });
  it('exits 2 on an unknown command', async () => {
    const r = await runCli(['nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'nope'");
  });
  it('exits 2 on an unknown subcommand', async () => {
    const r = await runCli(['tool-mcp', 'nope']);
    expect(r.code).toBe(2);
  });
  it('prints the version', async () => {
    const r = await runCli(['--version']);
    expect(r.stdout).toMatch(/^codex-mmo \d+\.\d+\.\d+/);
  });
});
