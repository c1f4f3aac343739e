/**
 * `codex-mmo completion bash|zsh`: the scripts are generated from the router's command table, so
 * they name every group, command, alias and option; the bash script completes in a real bash.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

import { ALIASES } from '../../src/cli/aliases.js';
import { optionsOfHelp } from '../../src/cli/completion-script.js';
import { COMMANDS, TOP_LEVEL } from '../../src/cli/router.js';
import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

const run = promisify(execFile);

/** What bash completes for the words of `line` (the last word being completed). */
async function bashComplete(script: string, words: readonly string[]): Promise<string[]> {
  const dir = await tmpDir('codex-mmo-completion-');
  const file = join(dir, 'completion.bash');
  await writeFile(file, script);
  const array = words.map((w) => `'${w}'`).join(' ');
  const { stdout } = await run('bash', [
    '-c',
    `source '${file}'; COMP_WORDS=(codex-mmo ${array}); COMP_CWORD=${words.length}; _codex_mmo; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
  return stdout.split('\n').filter((l) => l !== '');
}

describe('completion scripts', () => {
  it.each(['bash', 'zsh'])(
    'the %s script mentions every command, alias and option',
    async (shell) => {
      const r = await runCli(['completion', shell]);
      expect(r.code, r.stderr).toBe(0);
      const script = r.stdout;
      for (const [group, commands] of Object.entries(COMMANDS)) {
        expect(script).toMatch(new RegExp(`^ {4}${group}\\)$`, 'm'));
        for (const name of [...Object.keys(commands), ...Object.keys(ALIASES[group] ?? {})]) {
          expect(script, `${group} ${name}`).toMatch(new RegExp(`^ {8}${name}\\) opts=`, 'm'));
        }
      }
      for (const name of Object.keys(TOP_LEVEL)) {
        expect(script, name).toMatch(new RegExp(`^ {4}${name}\\) opts=`, 'm'));
      }
      for (const option of ['--transport', '--replace', '--check', '--timeout', '-H', '-e']) {
        expect(script).toContain(option);
      }
    },
  );

  it('bash completes groups, commands with their aliases, and options', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    expect(await bashComplete(script, ['tool'])).toEqual(['tool-mcp']);
    expect(await bashComplete(script, ['tool-mcp', 'l'])).toEqual(['list', 'ls']);
    expect(await bashComplete(script, ['tool-mcp', 'add', 'x', '--rep'])).toEqual(['--replace']);
    expect(await bashComplete(script, ['tool-mcp', 'status', '--ch'])).toEqual(['--check']);
    expect(await bashComplete(script, ['snapshot', 'rm', '--js'])).toEqual(['--json']);
    expect(await bashComplete(script, ['exec', '--accept'])).toEqual(['--accept-host-risk']);
  });

  it('reads the options of a help text from its option lines only', () => {
    const help = `Usage: codex-mmo x [--json]

Text that mentions --not-an-option.

Options:
  -e, --env NAME[=VALUE]   forward it (see --elsewhere)
  --url URL                the endpoint
  -h, --help               show this help`;
    expect(optionsOfHelp(help)).toEqual(['--env', '--help', '--url', '-e', '-h']);
  });

  it('refuses an unknown shell with a suggestion', async () => {
    const r = await runCli(['completion', 'bsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "completion takes one of bash, zsh, not 'bsh'; did you mean 'bash'?",
    );
    expect((await runCli(['completion'])).code).toBe(2);
  });
});
