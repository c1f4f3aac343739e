/**
 * Checks of a server definition's list fields (`args`-like string arrays and `enabled_tools`)
 * and the text rules they share with other fields (no NUL, no control characters).
 */
import type { KeyPath } from '../../foundation/toml/key-positions.js';
import { secretArgIndexes } from './credential-patterns.js';
import { describeType, showKey, type DiagnosticSink } from './diagnostic-sink.js';

export type Report = (
  code: Parameters<DiagnosticSink['report']>[0],
  path: KeyPath,
  message: string,
) => void;

/** Whether `text` has a control character (U+0000–U+001F, U+007F); a tab is allowed on request. */
export function hasControl(text: string, allowTab = false): boolean {
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if ((c < 0x20 && !(allowTab && c === 0x09)) || c === 0x7f) return true;
  }
  return false;
}

/** Whether `text` has a NUL character. */
export const hasNul = (text: string): boolean => text.includes('\u0000');

function mustBe(report: Report, name: string, path: KeyPath, value: unknown, what: string): void {
  report('invalid-type', path, `${name} must be ${what}, not ${describeType(value)}`);
}

/** An array of strings without NULs or credential-looking entries. */
export function checkStringArray(
  name: string,
  value: unknown,
  path: KeyPath,
  report: Report,
): string[] | undefined {
  if (!Array.isArray(value)) {
    mustBe(report, name, path, value, 'an array of strings');
    return undefined;
  }
  let ok = true;
  const strings = (value as unknown[]).map((item) => (typeof item === 'string' ? item : ''));
  const secret = new Set(secretArgIndexes(strings));
  for (const [index, item] of (value as unknown[]).entries()) {
    const itemPath = [...path, index];
    if (typeof item !== 'string') {
      report(
        'invalid-type',
        itemPath,
        `${name} entries must be strings, not ${describeType(item)}`,
      );
      ok = false;
    } else if (hasNul(item)) {
      report('nul-character', itemPath, `${name} entry contains a NUL character; remove it`);
      ok = false;
    } else if (secret.has(index)) {
      report(
        'credential-literal-value',
        itemPath,
        `this ${name} entry looks like a credential; never pass secrets as arguments (they are stored and shown): forward a variable with env_vars and put its value in credentials.env`,
      );
      ok = false;
    }
  }
  return ok ? [...(value as string[])] : undefined;
}

/** `enabled_tools`: a non-empty list of distinct, well-formed tool names. */
export function checkToolArray(
  name: string,
  value: unknown,
  path: KeyPath,
  report: Report,
): string[] | undefined {
  if (!Array.isArray(value)) {
    mustBe(report, name, path, value, 'an array of tool names');
    return undefined;
  }
  if (value.length === 0) {
    report(
      'empty-enabled-tools',
      path,
      'enabled_tools is empty; list at least one tool the server may expose (to stop using a server, remove its definition)',
    );
    return undefined;
  }
  let ok = true;
  const seen = new Set<string>();
  for (const [index, item] of (value as unknown[]).entries()) {
    const itemPath = [...path, index];
    if (typeof item !== 'string') {
      report('invalid-type', itemPath, `tool names must be strings, not ${describeType(item)}`);
      ok = false;
    } else if (item === '' || /\s/.test(item) || hasControl(item)) {
      report(
        'invalid-tool-name',
        itemPath,
        'tool names are non-empty and contain no spaces or control characters; write the exact name the server reports',
      );
      ok = false;
    } else if (seen.has(item)) {
      report(
        'duplicate-entry',
        itemPath,
        `${showKey(item)} is listed more than once in enabled_tools; remove the repeat`,
      );
      ok = false;
    } else seen.add(item);
  }
  return ok ? [...(value as string[])] : undefined;
}
