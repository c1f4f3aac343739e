/**
 * The shared reporting context of `profile.toml` validation: positioned diagnostics for key paths
 * and the small value checks every part of the pack validator uses (tables, strings, unknown keys).
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import {
  formatKeyPath,
  type KeyPath,
  type KeyPositions,
} from '../../foundation/toml/key-positions.js';

export type Table = Record<string, unknown>;

/** Reports a problem with a role reference when `target` is not a role of the pack. */
export type RoleReferenceCheck = (target: string, path: KeyPath, what: string) => void;

export interface PackCheck {
  readonly positions: KeyPositions;
  readonly diagnostics: Diagnostic[];
  report(code: string, path: KeyPath, message: string, severity?: 'error' | 'warning'): void;
  unknownKey(path: KeyPath, key: string, known: readonly string[], where: string): void;
  /** The string at `table[key]`; reports any other type and returns undefined. */
  requireString(table: Table, key: string, path: KeyPath, what: string): string | undefined;
}

/** `; did you mean `X`?` or `.`, to end a sentence about an unknown name. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const guess = suggest(word, candidates);
  return guess !== undefined ? `; did you mean \`${guess}\`?` : '.';
}

export function isTable(value: unknown): value is Table {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

export function describe(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'number' || typeof value === 'bigint') return 'a number';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (isTable(value)) return 'a table';
  return 'an unsupported value';
}

/** A reporting context for one file; diagnostics collect in `diagnostics`, in report order. */
export function createPackCheck(file: string, positions: KeyPositions): PackCheck {
  const diagnostics: Diagnostic[] = [];
  const report: PackCheck['report'] = (code, path, message, severity = 'error') => {
    // a key that is missing has no position: point at its table, or the start of the file
    const at = positions.lookup(path) ?? { line: 1, column: 1 };
    diagnostics.push(
      diagnostic({
        severity,
        code,
        message,
        file,
        line: at.line,
        column: at.column,
        path: formatKeyPath(path),
      }),
    );
  };
  return {
    positions,
    diagnostics,
    report,
    unknownKey(path, key, known, where) {
      report(
        'unknown-key',
        path,
        `unknown key \`${key}\` in ${where}${didYouMean(key, known)} Known keys: ${known.join(', ')}`,
      );
    },
    requireString(table, key, path, what) {
      const value = table[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'string') {
        report('invalid-type', [...path, key], `${what} must be a string, not ${describe(value)}`);
        return undefined;
      }
      return value;
    },
  };
}
