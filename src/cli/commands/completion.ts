/**
 * `codex-mmo completion bash|zsh`: prints a shell completion script for every command, alias and
 * option, generated from the router's command table and each command's help.
 */
import { COMPLETION_SHELLS, type CompletionShell, completionScript } from '../completion-script.js';
import { suggest } from '../../foundation/diagnostics/index.js';
import { UsageError, parseCommand, printHelp } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo completion bash|zsh

Print a completion script for the shell: command groups, commands and their aliases, and each
command's options. Load it for the current shell, or save it where the shell reads completions:

  source <(codex-mmo completion bash)         # bash; or save it in ~/.local/share/bash-completion/completions/codex-mmo
  source <(codex-mmo completion zsh)          # zsh, after compinit; or save it as _codex-mmo in a directory of $fpath`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1, names: ['SHELL'] });
  if (cmd.help) return printHelp(io, USAGE);
  const shell = cmd.positionals[0] ?? '';
  if (!(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
    const near = suggest(shell, COMPLETION_SHELLS);
    throw new UsageError(
      `completion takes one of ${COMPLETION_SHELLS.join(', ')}, not '${shell.slice(0, 40)}'${near !== undefined ? `; did you mean '${near}'?` : ''}`,
    );
  }
  io.stdout(await completionScript(shell as CompletionShell, io));
  return EXIT_OK;
}
