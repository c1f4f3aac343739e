/**
 * Command routing and usage errors: help on every level, exit 2 with the command's own usage line
 * for mistakes, and a did-you-mean for a mistyped command or option.
 */
import { describe, expect, it } from 'vitest';

import { COMMANDS, TOP_LEVEL } from '../../src/cli/router.js';
import { runCli } from '../support/cli.js';

describe('router', () => {
  it('prints top-level help listing every command group', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const group of ['tool-mcp list', 'profile doctor', 'snapshot compile', 'exec']) {
      expect(r.stdout).toContain(group);
    }
  });

  it('exits 2 with the command list on stderr when no command is given', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('codex-mmo: missing command');
    expect(r.stderr).toContain('tool-mcp list');
  });

  it('exits 2 on an unknown command, suggesting the nearest one', async () => {
    const r = await runCli(['tool-mpc', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'tool-mpc'. Did you mean 'tool-mcp'?");
    const plain = await runCli(['nope']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain("unknown command 'nope'.\n");
    // an option before any command is called one, with the nearest top-level option
    const option = await runCli(['--verison']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--verison'. Did you mean '--version'?");
  });

  it("names the groups' commands of that name for a command word given alone", async () => {
    const doctor = await runCli(['doctor']);
    expect(doctor.code).toBe(2);
    expect(doctor.stderr).toContain("unknown command 'doctor'. Did you mean 'profile doctor'?");
    const list = await runCli(['list']);
    expect(list.stderr).toContain(
      "unknown command 'list'. Did you mean 'tool-mcp list', 'profile list', 'snapshot list' or 'session list'?",
    );
    // an alias counts as the group's command
    expect((await runCli(['get'])).stderr).toContain("Did you mean 'tool-mcp get'?");
  });

  it('exits 2 on an unknown subcommand, suggesting the nearest one', async () => {
    const r = await runCli(['tool-mcp', 'valdiate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'tool-mcp valdiate'. Did you mean 'validate'?");
    expect(r.stderr).toContain('Usage: codex-mmo tool-mcp <command>');
  });

  it('lists a group on --help (exit 0) and on a missing subcommand (exit 2, stderr)', async () => {
    const help = await runCli(['tool-mcp', '--help']);
    expect(help.code).toBe(0);
    for (const name of ['list', 'show', 'validate', 'schema', 'probe', 'pin']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\s+\\S`, 'm'));
    }
    expect(help.stdout).toContain("Run 'codex-mmo tool-mcp <command> --help'");
    const r = await runCli(['tool-mcp']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('codex-mmo: missing tool-mcp command');
    // with --json the usage error is one JSON object on stdout
    const json = await runCli(['tool-mcp', '--json']);
    expect(json.code).toBe(2);
    expect(json.stderr).toBe('');
    expect(json.json()).toEqual({
      ok: false,
      diagnostics: [
        { severity: 'error', code: 'usage-error', message: 'missing tool-mcp command' },
      ],
    });
  });

  it('has --help on every command, starting with its usage line', async () => {
    const all = [
      ...Object.entries(COMMANDS).flatMap(([group, cmds]) =>
        Object.keys(cmds).map((name) => [group, name]),
      ),
      ...Object.keys(TOP_LEVEL).map((name) => [name]),
    ];
    for (const words of all) {
      const r = await runCli([...words, '--help']);
      expect(r.code, words.join(' ')).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: codex-mmo ${words.join(' ')}\\b`));
      expect(r.stdout).toContain('--config-dir DIR');
    }
  });

  it('prints the usage line of the command on a usage error', async () => {
    const r = await runCli(['tool-mcp', 'show']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "codex-mmo: missing ID\n\nUsage: codex-mmo tool-mcp show ID [--json]\n\nRun 'codex-mmo tool-mcp show --help' for details.\n",
    );
    const extra = await runCli(['tool-mcp', 'list', 'extra']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("unexpected argument 'extra'");
    expect(extra.stderr).toContain('Usage: codex-mmo tool-mcp list [--json]');
  });

  it('explains unknown options (with a suggestion) and options without a value', async () => {
    const typo = await runCli(['tool-mcp', 'list', '--jsno']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown option '--jsno'; did you mean '--json'?");
    expect(typo.stderr).toContain('Usage: codex-mmo tool-mcp list');
    const bogus = await runCli(['tool-mcp', 'validate', '--bogus']);
    expect(bogus.stderr).toContain("codex-mmo: unknown option '--bogus' (to pass");
    const noValue = await runCli(['tool-mcp', 'list', '--config-dir']);
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toContain("option '--config-dir' needs a value");
    const empty = await runCli(['tool-mcp', 'list', '--config-dir=']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("option '--config-dir' needs a non-empty value");
    const flagValue = await runCli(['tool-mcp', 'list', '--json=yes']);
    expect(flagValue.code).toBe(2);
    expect(flagValue.stderr).toContain("option '--json' takes no value");
  });

  it('prints the version', async () => {
    const r = await runCli(['--version']);
    expect(r.stdout).toMatch(/^codex-mmo \d+\.\d+\.\d+/);
  });

  it('suggests the nearest command, alias or option on every level', async () => {
    const cases: [string[], string][] = [
      [['tool-mcp', 'lsit'], "unknown command 'tool-mcp lsit'. Did you mean 'list'?"],
      [['tool-mcp', 'stauts'], "unknown command 'tool-mcp stauts'. Did you mean 'status'?"],
      [['snapshot', 'rn'], "unknown command 'snapshot rn'. Did you mean 'rm'?"],
      [['completoin', 'bash'], "unknown command 'completoin'. Did you mean 'completion'?"],
      [
        ['tool-mcp', 'add', 'x', '--replcae'],
        "unknown option '--replcae'; did you mean '--replace'?",
      ],
      [['tool-mcp', 'list', '--chek'], "unknown option '--chek'; did you mean '--check'?"],
      [['tool-mcp', 'ls', '--jsno'], "unknown option '--jsno'; did you mean '--json'?"],
      [['tool-mcp', 'add', 'x', '--transprot', 'http'], "did you mean '--transport'?"],
      [['tool-mcp', 'add', 'x', '--transport', 'htp'], "not 'htp'; did you mean 'http'?"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(message);
    }
  });
});
