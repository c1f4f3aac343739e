/**
 * Command routing for the CLI. Each command lives in its own module under `commands/` and is
 * imported only when invoked. Usage errors exit 2 with the command's usage line (and a
 * did-you-mean for a mistyped command); unexpected errors print one line and exit 1.
 */
import { CodexMmoError, describeError } from '../foundation/index.js';
import { suggest } from '../foundation/diagnostics/index.js';
import { terminalSafe } from '../foundation/text/index.js';
import { ALIASES, aliasOf, aliasesFor } from './aliases.js';
import { UsageError, usageExit } from './common.js';
import { EXIT_FAILURE, EXIT_USAGE, type CliIo, type CommandModule } from './io.js';

type Loader = () => Promise<CommandModule>;

/** `group command` → module loader. Commands added here appear in the top-level help. */
export const COMMANDS: Readonly<
  Record<string, Readonly<Record<string, { summary: string; load: Loader }>>>
> = {
  'tool-mcp': {
    list: {
      summary: 'list the operator registry',
      load: () => import('./commands/tool-mcp-list.js'),
    },
    show: {
      summary: 'show one server definition, provenance and readiness',
      load: () => import('./commands/tool-mcp-show.js'),
    },
    validate: {
      summary: 'validate the registry (or one server) and its readiness',
      load: () => import('./commands/tool-mcp-validate.js'),
    },
    schema: {
      summary: 'print the JSON Schema of a registry fragment',
      load: () => import('./commands/tool-mcp-schema.js'),
    },
    probe: {
      summary: 'start a server, list its tools and compare with the registry and pin',
      load: () => import('./commands/tool-mcp-probe.js'),
    },
    pin: {
      summary: "record a server's current tool surface in tool-mcp.lock",
      load: () => import('./commands/tool-mcp-pin.js'),
    },
    add: {
      summary: 'start a new server, write its fragment with every tool it offers, and pin it',
      load: () => import('./commands/tool-mcp-add.js'),
    },
    remove: {
      summary: 'remove a server from the registry and its pin',
      load: () => import('./commands/tool-mcp-remove.js'),
    },
    import: {
      summary: 'bring the servers of a Codex, Claude Code or server.json file into the registry',
      load: () => import('./commands/tool-mcp-import.js'),
    },
    export: {
      summary: 'print registry entries as Codex, Claude Code or server.json configuration',
      load: () => import('./commands/tool-mcp-export.js'),
    },
  },
  profile: {
    install: {
      summary: 'install a profile pack',
      load: () => import('./commands/profile-install.js'),
    },
    list: {
      summary: 'list installed profile packs',
      load: () => import('./commands/profile-list.js'),
    },
    show: {
      summary: 'show a profile, or its resolved plan with --resolved',
      load: () => import('./commands/profile-show.js'),
    },
    doctor: {
      summary: 'check a profile against the registry, credentials and Codex',
      load: () => import('./commands/profile-doctor.js'),
    },
    smoke: {
      summary: 'run real Codex offline and compare granted with received tools',
      load: () => import('./commands/profile-smoke.js'),
    },
  },
  snapshot: {
    compile: {
      summary: 'compile a profile into an immutable snapshot',
      load: () => import('./commands/snapshot-compile.js'),
    },
    list: { summary: 'list stored snapshots', load: () => import('./commands/snapshot-list.js') },
    show: { summary: 'show a snapshot', load: () => import('./commands/snapshot-show.js') },
    render: {
      summary: "write a snapshot's Codex configuration",
      load: () => import('./commands/snapshot-render.js'),
    },
    prune: {
      summary: 'remove snapshots no session or installed pack references',
      load: () => import('./commands/snapshot-prune.js'),
    },
    rm: {
      summary: 'remove one snapshot no running session uses',
      load: () => import('./commands/snapshot-rm.js'),
    },
  },
  session: {
    list: { summary: 'list sessions', load: () => import('./commands/session-list.js') },
    show: { summary: 'show a session', load: () => import('./commands/session-show.js') },
    stop: { summary: 'stop a session', load: () => import('./commands/session-stop.js') },
    resume: {
      summary: 'continue an ended, stopped or failed session from its own snapshot',
      load: () => import('./commands/session-resume.js'),
    },
    approvals: {
      summary: 'list approval requests waiting for a person',
      load: () => import('./commands/session-approvals.js'),
    },
    approve: {
      summary: 'approve a pending approval request',
      load: () => import('./commands/session-approve.js'),
    },
    deny: {
      summary: 'deny a pending approval request',
      load: () => import('./commands/session-deny.js'),
    },
    logs: {
      summary: "print a session's events, or follow them",
      load: () => import('./commands/session-logs.js'),
    },
    calls: {
      summary: "show a session's Tool MCP calls",
      load: () => import('./commands/session-calls.js'),
    },
    prune: {
      summary: 'remove ended sessions (optionally only older ones)',
      load: () => import('./commands/session-prune.js'),
    },
  },
  mesh: {
    serve: {
      summary: 'serve the mmo_mesh Agent MCP server (started by Codex)',
      load: () => import('./commands/mesh-serve.js'),
    },
  },
  gateway: {
    connect: {
      summary: 'relay one Tool MCP server to the session gateway (started by Codex)',
      load: () => import('./commands/gateway-connect.js'),
    },
  },
};

/** Single-word commands. */
export const TOP_LEVEL: Readonly<Record<string, { summary: string; load: Loader }>> = {
  run: { summary: 'start interactive Codex as a profile', load: () => import('./commands/run.js') },
  exec: {
    summary: 'run Codex non-interactively as a profile with a prompt',
    load: () => import('./commands/exec.js'),
  },
  'scripted-model': {
    summary: 'serve the built-in scripted model, for offline runs without an API key',
    load: () => import('./commands/scripted-model.js'),
  },
  completion: {
    summary: 'print a bash or zsh completion script',
    load: () => import('./commands/completion.js'),
  },
};

/** A command's summary with its aliases, if it has any. */
function summaryOf(group: string, name: string, summary: string): string {
  const aliases = aliasesFor(group, name);
  return aliases.length === 0 ? summary : `${summary} (alias: ${aliases.join(', ')})`;
}

export function topLevelHelp(): string {
  const lines = ['Usage: codex-mmo <command> [options]', '', 'Commands:'];
  const entries: [string, string][] = [];
  for (const [group, commands] of Object.entries(COMMANDS)) {
    for (const [name, entry] of Object.entries(commands))
      entries.push([`${group} ${name}`, summaryOf(group, name, entry.summary)]);
  }
  for (const [name, entry] of Object.entries(TOP_LEVEL)) entries.push([name, entry.summary]);
  const width = Math.max(...entries.map(([n]) => n.length));
  for (const [name, summary] of entries) lines.push(`  ${name.padEnd(width)}  ${summary}`);
  lines.push('', "Run 'codex-mmo <command> --help' for a command's options.");
  return lines.join('\n') + '\n';
}

function groupHelp(group: string): string {
  const commands = COMMANDS[group] ?? {};
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const lines = [`Usage: codex-mmo ${group} <command> [options]`, '', 'Commands:'];
  for (const [name, entry] of Object.entries(commands))
    lines.push(`  ${name.padEnd(width)}  ${summaryOf(group, name, entry.summary)}`);
  lines.push('', `Run 'codex-mmo ${group} <command> --help' for a command's options.`);
  return lines.join('\n') + '\n';
}

/** ` Did you mean 'x'?` for a mistyped command word, or nothing. */
function commandHint(word: string, candidates: readonly string[]): string {
  const near = suggest(word, candidates);
  return near !== undefined ? ` Did you mean '${near}'?` : '';
}

/** For a command word given alone: the groups' commands (and aliases) of that very name. */
function groupedHint(word: string): string {
  const found = Object.entries(COMMANDS)
    .filter(([group, commands]) => Object.hasOwn(commands, word) || aliasOf(group, word))
    .map(([group]) => `'${group} ${word}'`);
  if (found.length === 0) return '';
  const last = found.pop() ?? '';
  return ` Did you mean ${found.length > 0 ? `${found.join(', ')} or ${last}` : last}?`;
}

/** A command's help text, by running it with `--help` and capturing what it prints. */
async function helpOf(module: CommandModule, io: CliIo): Promise<string | undefined> {
  let text = '';
  try {
    const code = await module.run(['--help'], {
      ...io,
      stdout: (chunk) => {
        text += chunk;
      },
      stderr: () => undefined,
    });
    return code === 0 && text.startsWith('Usage:') ? text : undefined;
  } catch {
    return undefined;
  }
}

export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, second, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout(topLevelHelp());
    return 0;
  }
  if (first === undefined) {
    io.stderr(`codex-mmo: missing command\n\n${topLevelHelp()}`);
    return EXIT_USAGE;
  }
  // `--version` (or `-V`) before any command word, with global options around it
  const versionAt = argv.findIndex((arg) => arg === '--version' || arg === '-V');
  if (versionAt >= 0 && first.startsWith('-')) {
    const rest = argv.filter((_, index) => index !== versionAt);
    try {
      return await (await import('./commands/version.js')).run(rest, io);
    } catch (error) {
      if (error instanceof UsageError) {
        return usageExit(io, error.message, 'Usage: codex-mmo --version [--json]', '--version');
      }
      throw error;
    }
  }
  let loader: Loader | undefined;
  let args: readonly string[];
  const top = TOP_LEVEL[first];
  if (top) {
    loader = top.load;
    args = argv.slice(1);
  } else {
    const group = COMMANDS[first];
    if (!group) {
      // an option before any command: only --help, --version and the global options are one
      const what = first.startsWith('-') ? 'option' : 'command';
      const hint =
        (what === 'command' ? groupedHint(first) : '') ||
        commandHint(
          first,
          what === 'option'
            ? ['--help', '--version']
            : [...Object.keys(COMMANDS), ...Object.keys(TOP_LEVEL)],
        );
      if (wantsJson(argv))
        return printJsonFailure(io, new UsageError(`unknown ${what} '${first}'.${hint}`));
      io.stderr(`codex-mmo: unknown ${what} '${first}'.${hint}\n\n${topLevelHelp()}`);
      return EXIT_USAGE;
    }
    if (second === '--help' || second === '-h') {
      io.stdout(groupHelp(first));
      return 0;
    }
    if (second === undefined || second.startsWith('-')) {
      if (wantsJson(argv)) return printJsonFailure(io, new UsageError(`missing ${first} command`));
      io.stderr(`codex-mmo: missing ${first} command\n\n${groupHelp(first)}`);
      return EXIT_USAGE;
    }
    const alias = Object.hasOwn(group, second) ? undefined : aliasOf(first, second);
    const entry = alias !== undefined ? group[alias.command] : group[second];
    if (!entry) {
      const hint = commandHint(second, [
        ...Object.keys(group),
        ...Object.keys(ALIASES[first] ?? {}),
      ]);
      if (wantsJson(argv)) {
        return printJsonFailure(io, new UsageError(`unknown command '${first} ${second}'.${hint}`));
      }
      io.stderr(`codex-mmo: unknown command '${first} ${second}'.${hint}\n\n${groupHelp(first)}`);
      return EXIT_USAGE;
    }
    loader = entry.load;
    args = alias !== undefined ? [...(alias.args ?? []), ...rest] : rest;
  }
  const command = top ? first : `${first} ${aliasOf(first, second ?? '')?.command ?? second ?? ''}`;
  let module: CommandModule | undefined;
  try {
    module = await loader();
    return await module.run(args, io);
  } catch (error) {
    if (wantsJson(args)) return printJsonFailure(io, error);
    if (error instanceof UsageError) {
      const usage = module ? await helpOf(module, io) : undefined;
      return usageExit(io, error.message, usage ?? `Usage: codex-mmo ${command} ...`, command);
    }
    io.stderr(`codex-mmo: ${terminalSafe(describeError(error))}\n`);
    return error instanceof CodexMmoError && error.code === 'usage-error'
      ? EXIT_USAGE
      : EXIT_FAILURE;
  }
}

/** Whether the command's own arguments (before any `--`) ask for JSON output. */
function wantsJson(args: readonly string[]): boolean {
  const separator = args.indexOf('--');
  return (separator < 0 ? args : args.slice(0, separator)).includes('--json');
}

/**
 * A command that asked for --json and failed with an exception still prints one JSON object on
 * stdout, `{"ok": false, "diagnostics": [...]}`: a usage error exits 2, anything else 1.
 */
function printJsonFailure(io: CliIo, error: unknown): number {
  const usage =
    error instanceof UsageError || (error instanceof CodexMmoError && error.code === 'usage-error');
  const failure =
    error instanceof UsageError
      ? { severity: 'error', code: 'usage-error', message: error.message }
      : error instanceof CodexMmoError
        ? { severity: 'error', code: error.code, message: error.message }
        : { severity: 'error', code: 'command-failed', message: describeError(error) };
  try {
    io.stdout(`${JSON.stringify({ ok: false, diagnostics: [failure] })}\n`);
  } catch (writeError) {
    // stdout itself failed (a full disk, `> /dev/full`): say so once, on stderr
    const why = describeError(writeError);
    const what = failure.message === why ? '' : `${failure.message}; `;
    io.stderr(`codex-mmo: ${what}cannot write output: ${why}\n`);
  }
  return usage ? EXIT_USAGE : EXIT_FAILURE;
}
