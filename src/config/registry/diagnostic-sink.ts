/**
 * Collects the diagnostics of one fragment, giving each the file, the line and column of the key
 * it is about (or of its nearest enclosing key; 1:1 for a file without keys), its key path, and
 * the severity its code has in the registry's catalogue.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import {
  formatKeyPath,
  type KeyPath,
  type KeyPositions,
} from '../../foundation/toml/key-positions.js';
import { isCredentialValue } from './credential-patterns.js';
import { REGISTRY_CODES, type RegistryCode } from './diagnostic-codes.js';

/** Stands in for a key that is itself shaped like a credential (a token pasted as a key). */
export const REDACTED_KEY = '<redacted>';

/** A key as it may appear in output: redacted when it looks like a credential value. */
export function safeKey(key: string): string {
  return isCredentialValue(key) ? REDACTED_KEY : key;
}

/** A key for a message: quoted when it is not a bare key, shortened when it is very long. */
export function showKey(key: string): string {
  const safe = safeKey(key);
  if (/^[A-Za-z0-9_-]+$/.test(safe) && safe.length <= 80) return safe;
  return JSON.stringify(safe.length <= 80 ? safe : `${safe.slice(0, 60)}…`);
}

export class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];
  private errors = 0;

  constructor(
    readonly file: string,
    readonly positions: KeyPositions | undefined,
  ) {}

  /** Records a problem about the key at `path` (of server `server`, when there is one). */
  report(code: RegistryCode, path: KeyPath, message: string, server?: string): void {
    const severity = REGISTRY_CODES[code].severity;
    const at = this.positions?.lookup(path) ?? { line: 1, column: 1 };
    if (severity === 'error') this.errors++;
    this.diagnostics.push(
      diagnostic({
        severity,
        code,
        message,
        file: this.file,
        line: at.line,
        column: at.column,
        path: formatKeyPath(path.map((s) => (typeof s === 'string' ? safeKey(s) : s))),
        server: server === undefined ? undefined : safeKey(server),
      }),
    );
  }

  /** Errors recorded so far (compare before and after validating a part). */
  get errorCount(): number {
    return this.errors;
  }
}

/** Words for a TOML value's type, for "must be a string, not an array" messages. */
export function describeType(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
    case 'bigint':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'a table';
    default:
      return typeof value;
  }
}

/** A TOML table (not an array, not a date). */
export function isTable(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}
