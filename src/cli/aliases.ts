/**
 * Short names operators know from other MCP clients (`get`, `ls`, `rm`, `status`): each alias
 * maps a word of a command group onto an existing command of that group, with any arguments it
 * implies (`tool-mcp status` is `tool-mcp list --check`). The router resolves them; help shows them.
 */

export interface CommandAlias {
  /** The command of the same group the alias runs. */
  readonly command: string;
  /** Arguments placed before the operator's own (`--check`). */
  readonly args?: readonly string[];
}

/** `group alias` → the command it runs. Only aliases of existing commands belong here. */
export const ALIASES: Readonly<Record<string, Readonly<Record<string, CommandAlias>>>> = {
  'tool-mcp': {
    get: { command: 'show' },
    ls: { command: 'list' },
    rm: { command: 'remove' },
    status: { command: 'list', args: ['--check'] },
  },
  profile: { ls: { command: 'list' } },
  snapshot: { ls: { command: 'list' } },
  session: { ls: { command: 'list' } },
};

/** The alias `word` of `group`, when it is one. */
export function aliasOf(group: string, word: string): CommandAlias | undefined {
  const aliases = Object.hasOwn(ALIASES, group) ? ALIASES[group] : undefined;
  return aliases !== undefined && Object.hasOwn(aliases, word) ? aliases[word] : undefined;
}

/** The aliases of `command` in `group`, as they read in help (`ls`, `status = list --check`). */
export function aliasesFor(group: string, command: string): string[] {
  const aliases = Object.hasOwn(ALIASES, group) ? (ALIASES[group] ?? {}) : {};
  return Object.entries(aliases)
    .filter(([, alias]) => alias.command === command)
    .map(([name, alias]) =>
      alias.args === undefined ? name : `${name} = ${command} ${alias.args.join(' ')}`,
    );
}
