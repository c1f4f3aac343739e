/**
 * Shell completion scripts built from the router's command table: the command groups, their
 * commands and aliases, the single-word commands, and each command's options as its own `--help`
 * lists them. `completionScript('bash' | 'zsh')` returns the script text.
 */
import { ALIASES } from './aliases.js';
import type { CliIo, CommandModule } from './io.js';
import { COMMANDS, TOP_LEVEL } from './router.js';

export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** Every word a shell may complete, by position. */
export interface CompletionTable {
  /** Group names and single-word commands. */
  readonly top: readonly string[];
  /** Group → its command words (aliases included). */
  readonly groups: ReadonlyMap<string, readonly string[]>;
  /** `group command` or `command` → its options (aliases share their command's). */
  readonly options: ReadonlyMap<string, readonly string[]>;
}

/** The options an option line of a help text names (`  -e, --env KEY[=VALUE]   …`). */
export function optionsOfHelp(help: string): string[] {
  const found = new Set<string>();
  for (const line of help.split('\n')) {
    if (!/^\s+-/.test(line)) continue;
    const spec = line.trim().split(/\s{2,}/)[0] ?? '';
    for (const match of spec.matchAll(/(?:^|[\s,|[])(--?[A-Za-z][A-Za-z0-9-]*)/g)) {
      if (match[1] !== undefined) found.add(match[1]);
    }
  }
  return [...found].sort();
}

/** A command's help text, captured from running it with `--help` in this process. */
async function helpText(load: () => Promise<CommandModule>, io: CliIo): Promise<string> {
  let text = '';
  const module = await load();
  await module.run(['--help'], {
    ...io,
    stdout: (chunk) => {
      text += chunk;
    },
    stderr: () => undefined,
  });
  return text;
}

/** The completion table of the router's commands, options read from each command's help. */
export async function completionTable(io: CliIo): Promise<CompletionTable> {
  const groups = new Map<string, string[]>();
  const options = new Map<string, string[]>();
  for (const [group, commands] of Object.entries(COMMANDS)) {
    const aliases = Object.hasOwn(ALIASES, group) ? (ALIASES[group] ?? {}) : {};
    groups.set(group, [...Object.keys(commands), ...Object.keys(aliases)]);
    for (const [name, entry] of Object.entries(commands)) {
      options.set(`${group} ${name}`, optionsOfHelp(await helpText(entry.load, io)));
    }
    for (const [name, alias] of Object.entries(aliases)) {
      options.set(`${group} ${name}`, options.get(`${group} ${alias.command}`) ?? []);
    }
  }
  for (const [name, entry] of Object.entries(TOP_LEVEL)) {
    options.set(name, optionsOfHelp(await helpText(entry.load, io)));
  }
  return {
    top: [...Object.keys(COMMANDS), ...Object.keys(TOP_LEVEL), '--help', '--version'],
    groups,
    options,
  };
}

/** Words of the table are command and option names: letters, digits and `-` only. */
function words(list: readonly string[]): string {
  return list.filter((w) => /^-{0,2}[A-Za-z0-9][A-Za-z0-9-]*$/.test(w)).join(' ');
}

function bashScript(table: CompletionTable): string {
  const lines = [
    '# bash completion for codex-mmo; load it with: source <(codex-mmo completion bash)',
    '_codex_mmo() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" opts=""',
    '  if [[ $COMP_CWORD -eq 1 ]]; then',
    `    COMPREPLY=($(compgen -W "${words(table.top)}" -- "$cur"))`,
    '    return',
    '  fi',
    '  case "${COMP_WORDS[1]}" in',
  ];
  for (const [group, commands] of table.groups) {
    lines.push(`    ${group})`);
    lines.push('      if [[ $COMP_CWORD -eq 2 ]]; then');
    lines.push(`        COMPREPLY=($(compgen -W "${words(commands)}" -- "$cur"))`);
    lines.push('        return');
    lines.push('      fi');
    lines.push('      case "${COMP_WORDS[2]}" in');
    for (const command of commands) {
      lines.push(
        `        ${command}) opts="${words(table.options.get(`${group} ${command}`) ?? [])}" ;;`,
      );
    }
    lines.push('      esac ;;');
  }
  for (const name of Object.keys(TOP_LEVEL)) {
    lines.push(`    ${name}) opts="${words(table.options.get(name) ?? [])}" ;;`);
  }
  lines.push(
    '  esac',
    '  if [[ "$cur" == -* ]]; then',
    '    COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
    '  fi',
    '}',
    'complete -o default -F _codex_mmo codex-mmo',
  );
  return `${lines.join('\n')}\n`;
}

function zshScript(table: CompletionTable): string {
  const lines = [
    '#compdef codex-mmo',
    '# zsh completion for codex-mmo; load it with: source <(codex-mmo completion zsh)',
    '# (after compinit), or save it as _codex-mmo in a directory of $fpath',
    '_codex_mmo() {',
    '  local -a opts',
    '  if (( CURRENT == 2 )); then',
    `    compadd -- ${words(table.top)}`,
    '    return',
    '  fi',
    '  case ${words[2]} in',
  ];
  for (const [group, commands] of table.groups) {
    lines.push(`    ${group})`);
    lines.push('      if (( CURRENT == 3 )); then');
    lines.push(`        compadd -- ${words(commands)}`);
    lines.push('        return');
    lines.push('      fi');
    lines.push('      case ${words[3]} in');
    for (const command of commands) {
      lines.push(
        `        ${command}) opts=(${words(table.options.get(`${group} ${command}`) ?? [])}) ;;`,
      );
    }
    lines.push('      esac ;;');
  }
  for (const name of Object.keys(TOP_LEVEL)) {
    lines.push(`    ${name}) opts=(${words(table.options.get(name) ?? [])}) ;;`);
  }
  lines.push(
    '  esac',
    '  if [[ $PREFIX == -* ]]; then',
    '    compadd -- $opts',
    '  else',
    '    _files',
    '  fi',
    '}',
    'compdef _codex_mmo codex-mmo',
  );
  return `${lines.join('\n')}\n`;
}

/** The completion script of `shell` for every command of the router. */
export async function completionScript(shell: CompletionShell, io: CliIo): Promise<string> {
  const table = await completionTable(io);
  return shell === 'bash' ? bashScript(table) : zshScript(table);
}
