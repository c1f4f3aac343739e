/**
 * Shared pieces of every command: the global options (--config-dir, --data-dir, --state-dir,
 * --codex-bin, --json, --help), usage errors, and printing diagnostics as text or JSON.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { setFlagsFromString } from 'node:v8';

import { CodexMmoError } from '../foundation/index.js';
import {
  type Diagnostic,
  formatDiagnostic,
  sortDiagnostics,
  suggest,
  summarize,
} from '../foundation/diagnostics/index.js';
import { type Directories, resolveDirectories } from '../foundation/paths/index.js';
import { terminalSafe } from '../foundation/text/index.js';
import { EXIT_FAILURE, EXIT_USAGE, type CliIo } from './io.js';

export const GLOBAL_OPTIONS = {
  'config-dir': { type: 'string' },
  'data-dir': { type: 'string' },
  'state-dir': { type: 'string' },
  'codex-bin': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const GLOBAL_HELP = `Global options:
  --json               print machine-readable JSON
  --config-dir DIR     operator config dir (default: $CODEX_MMO_CONFIG_DIR, $XDG_CONFIG_HOME/codex-mmo, ~/.config/codex-mmo)
  --data-dir DIR       packs and snapshots (default: $CODEX_MMO_DATA_DIR, $XDG_DATA_HOME/codex-mmo, ~/.local/share/codex-mmo)
  --state-dir DIR      sessions and logs (default: $CODEX_MMO_STATE_DIR, $XDG_STATE_HOME/codex-mmo, ~/.local/state/codex-mmo)
  --codex-bin PATH     Codex binary (default: $CODEX_MMO_CODEX_BIN, codex on PATH)
  -h, --help           show this help`;

/** Thrown by argument parsing; the router prints it with the command's usage line and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface ParsedCommand<V> {
  readonly values: V;
  readonly positionals: string[];
  readonly json: boolean;
  readonly help: boolean;
  readonly dirs: Directories;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** How many positional arguments a command takes, and their names for messages (`ID`). */
export interface PositionalSpec {
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

/** A short, lower-case message for a `util.parseArgs` error, with a did-you-mean for typos. */
function usageMessage(error: unknown, options: Options): string {
  const code = (error as { code?: unknown } | null)?.code;
  const text = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(text)?.[1] ?? '';
    const near = suggest(option.replace(/^-+/, ''), Object.keys(options));
    const hint = near !== undefined ? `; did you mean '--${near}'?` : '';
    return `unknown option '${option}'${hint} (to pass an argument that starts with '-', put it after '--')`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /'(-[^' ]+)/.exec(text)?.[1] ?? '';
    if (text.includes('argument missing')) return `option '${option}' needs a value`;
    if (text.includes('does not take an argument')) return `option '${option}' takes no value`;
  }
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * Parses a command's arguments with the global options merged in. Unknown options (with a
 * suggestion), options missing their value or given an empty one, and wrong positional counts
 * become UsageError.
 */
export function parseCommand(
  args: readonly string[],
  io: CliIo,
  options: Options,
  positionals: PositionalSpec,
): ParsedCommand<Record<string, string | boolean | (string | boolean)[] | undefined>> {
  const all = { ...GLOBAL_OPTIONS, ...options };
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: all, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(usageMessage(error, all));
  }
  const values = parsed.values as Record<
    string,
    string | boolean | (string | boolean)[] | undefined
  >;
  const help = values.help === true;
  if (!help) {
    for (const [name, value] of Object.entries(values)) {
      if (value === '') throw new UsageError(`option '--${name}' needs a non-empty value`);
    }
    const count = parsed.positionals.length;
    if (count < positionals.min) {
      const missing = positionals.names?.slice(count, positionals.min) ?? [];
      throw new UsageError(
        missing.length > 0
          ? `missing ${missing.join(' and ')}`
          : `missing argument (expected ${positionals.min})`,
      );
    }
    if (count > positionals.max) {
      throw new UsageError(`unexpected argument '${parsed.positionals[positionals.max] ?? ''}'`);
    }
  }
  const str = (key: string): string | undefined =>
    typeof values[key] === 'string' ? values[key] : undefined;
  const dirs = resolveDirectories(
    io.env,
    io.home,
    {
      configDir: str('config-dir'),
      dataDir: str('data-dir'),
      stateDir: str('state-dir'),
      codexBin: str('codex-bin'),
    },
    io.cwd,
  );
  return {
    values,
    positionals: parsed.positionals,
    json: values.json === true,
    help,
    dirs,
  };
}

/**
 * Keeps this process on V8's interpreter and baseline compiler, for short read-only commands
 * (`tool-mcp list|show|validate`): they run for tens of milliseconds, less than the optimising
 * compilers (TurboFan, Maglev) need to pay back their own CPU time on a busy machine. Measured on
 * the 200-server registry of `bench/registry.mjs`, alternating runs: `tool-mcp list --json` takes
 * 0.57-0.77x, `show` 0.66x and `validate` 0.82x of its time without this. Call it after argument
 * parsing, before the work.
 */
export function skipOptimisingCompilers(): void {
  setFlagsFromString('--no-turbofan --no-maglev');
}

/** Prints help text and returns exit 0. */
export function printHelp(io: CliIo, usage: string): number {
  io.stdout(`${usage.trimEnd()}\n\n${GLOBAL_HELP}\n`);
  return 0;
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints diagnostics one per line to stderr, then a summary line when there are any. */
export function printDiagnostics(io: CliIo, diagnostics: readonly Diagnostic[]): void {
  const sorted = sortDiagnostics(diagnostics);
  for (const d of sorted) io.stderr(`${formatDiagnostic(d)}\n`);
  if (sorted.length > 0) {
    const { errors, warnings } = summarize(sorted);
    const parts: string[] = [];
    if (errors > 0) parts.push(`${errors} error${errors === 1 ? '' : 's'}`);
    if (warnings > 0) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
    if (parts.length > 0) io.stderr(`${parts.join(', ')}\n`);
  }
}

/**
 * Ends a command that failed with `diagnostics`: JSON `{"ok": false, "diagnostics"}` on stdout
 * or the diagnostics on stderr. Returns `code` (1 unless given).
 */
export function printFailure(
  io: CliIo,
  json: boolean,
  diagnostics: readonly Diagnostic[],
  code: number = EXIT_FAILURE,
): number {
  if (json) printJson(io, { ok: false, diagnostics });
  else printDiagnostics(io, diagnostics);
  return code;
}

/**
 * Ends a command on a thrown CodexMmoError as one diagnostic with the error's code: exit 2 for
 * `usage-error` (a malformed or ambiguous argument), 1 otherwise. Other errors are rethrown.
 */
export function printCaughtError(io: CliIo, json: boolean, error: unknown): number {
  if (!(error instanceof CodexMmoError)) throw error;
  return printFailure(
    io,
    json,
    [{ severity: 'error', code: error.code, message: error.message }],
    error.code === 'usage-error' ? EXIT_USAGE : EXIT_FAILURE,
  );
}

/** The `Usage:` paragraph of a command's help text (up to the first blank line). */
export function usageLines(usage: string): string {
  return usage.trimStart().split(/\n\s*\n/)[0] ?? usage;
}

/**
 * Prints a usage error, the command's usage line and where to find more; returns exit 2.
 * `usage` is the command's help text (only its `Usage:` paragraph is printed) and `command`
 * the words that name it (`tool-mcp show`).
 */
export function usageExit(io: CliIo, message: string, usage: string, command?: string): number {
  const more =
    command !== undefined
      ? `Run 'codex-mmo ${command} --help' for details.`
      : 'Run with --help for options.';
  // the message may quote names read from a session's files: one terminal-safe line
  io.stderr(`codex-mmo: ${terminalSafe(message)}\n\n${usageLines(usage).trimEnd()}\n\n${more}\n`);
  return EXIT_USAGE;
}
