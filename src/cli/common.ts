/**
 * Shared pieces of every command: the global options (--config-dir, --data-dir, --state-dir,
 * --codex-bin, --json, --help), usage errors, and printing diagnostics as text or JSON.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

import {
  formatDiagnostic,
  sortDiagnostics,
  summarize,
  type Diagnostic,
} from '../diagnostics/diagnostic.js';
import { resolveDirectories, type Directories } from '../paths/directories.js';
import { EXIT_USAGE, type CliIo } from './io.js';

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

/** Thrown by argument parsing; main prints it with the command's usage and exits 2. */
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

/**
 * Parses a command's arguments with the global options merged in. Unknown options and wrong
 * positional counts become UsageError.
 */
export function parseCommand(
  args: readonly string[],
  io: CliIo,
  options: Options,
  positionals: { min: number; max: number },
): ParsedCommand<Record<string, string | boolean | (string | boolean)[] | undefined>> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values as Record<
    string,
    string | boolean | (string | boolean)[] | undefined
  >;
  const help = values.help === true;
  if (!help) {
    if (parsed.positionals.length < positionals.min) {
      throw new UsageError('missing argument');
    }
    if (parsed.positionals.length > positionals.max) {
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

/** Left-aligned table with two-space gutters; no trailing spaces. */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

export function usageExit(io: CliIo, message: string, usage: string): number {
  io.stderr(`codex-mmo: ${message}\n\n${usage.trimEnd()}\n\nRun with --help for options.\n`);
  return EXIT_USAGE;
}
