/**
 * The short command names operators know from other MCP clients: each alias runs the same
 * command as its full name (same output, same exit code), resolves only to existing commands,
 * and is shown in the group and top-level help.
 */
import { describe, expect, it } from 'vitest';

import { ALIASES } from '../../src/cli/aliases.js';
import { COMMANDS } from '../../src/cli/router.js';
import { runCli } from '../support/cli.js';
import { runIn, workspace } from '../support/probe-helpers.js';
import { tmpDir } from '../support/tmp.js';

const FRAGMENT =
  '[tool_mcp_servers.tiny]\ntransport = "stdio"\ncommand = "true"\nenabled_tools = ["x"]\ndefault_tools_approval_mode = "prompt"\n';

describe('command aliases', () => {
  it('map only onto commands that exist in their group', () => {
    for (const [group, aliases] of Object.entries(ALIASES)) {
      const commands = COMMANDS[group];
      expect(commands, group).toBeDefined();
      for (const [name, alias] of Object.entries(aliases)) {
        expect(Object.keys(commands ?? {}), `${group} ${name}`).toContain(alias.command);
        expect(Object.keys(commands ?? {}), `${group} ${name} shadows a command`).not.toContain(
          name,
        );
      }
    }
  });

  it('tool-mcp ls, get and rm run list, show and remove', async () => {
    const ws = await workspace();
    await ws.fragment('10-tiny.toml', FRAGMENT);
    const list = await runIn(ws, ['tool-mcp', 'list']);
    const ls = await runIn(ws, ['tool-mcp', 'ls']);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toBe(list.stdout);
    expect(ls.json<{ servers: { id: string }[] }>().servers.map((s) => s.id)).toEqual(['tiny']);
    const show = await runIn(ws, ['tool-mcp', 'show', 'tiny']);
    const get = await runIn(ws, ['tool-mcp', 'get', 'tiny']);
    expect(get.code).toBe(show.code);
    expect(get.stdout).toBe(show.stdout);
    const rm = await runIn(ws, ['tool-mcp', 'rm', 'tiny']);
    expect(rm.code, rm.stdout + rm.stderr).toBe(0);
    const after = await runIn(ws, ['tool-mcp', 'ls']);
    expect(after.json<{ servers: unknown[] }>().servers).toEqual([]);
  });

  it('snapshot ls, session ls and profile ls run their list commands', async () => {
    const root = await tmpDir('codex-mmo-alias-');
    const dirs = ['--data-dir', `${root}/data`, '--state-dir', `${root}/state`, '--json'];
    for (const group of ['snapshot', 'session', 'profile']) {
      const full = await runCli([group, 'list', ...dirs]);
      const short = await runCli([group, 'ls', ...dirs]);
      expect(short.code, `${group} ls: ${short.stderr}`).toBe(full.code);
      expect(short.stdout, `${group} ls`).toBe(full.stdout);
    }
  });

  it("an alias's --help is its command's help, and help lists the aliases", async () => {
    const ls = await runCli(['tool-mcp', 'ls', '--help']);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^Usage: codex-mmo tool-mcp list\b/);
    const group = await runCli(['tool-mcp', '--help']);
    expect(group.stdout).toMatch(/^ {2}list\s+.*\(alias: ls, status = list --check\)$/m);
    expect(group.stdout).toMatch(/^ {2}show\s+.*\(alias: get\)$/m);
    expect(group.stdout).toMatch(/^ {2}remove\s+.*\(alias: rm\)$/m);
    const top = await runCli(['--help']);
    expect(top.stdout).toMatch(/^ {2}snapshot list\s+.*\(alias: ls\)$/m);
    expect(top.stdout).toMatch(/^ {2}session list\s+.*\(alias: ls\)$/m);
  });

  it('a usage error through an alias names the full command', async () => {
    const r = await runCli(['tool-mcp', 'get']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing ID');
    expect(r.stderr).toContain("Run 'codex-mmo tool-mcp show --help' for details.");
  });
});
