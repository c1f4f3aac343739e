/**
 * Finds known credential values inside configuration literals (pure): every string (and key) of
 * a fragment's definition, `codex-base.toml` or a profile pack is compared with the values of
 * credentials.env and the launch environment's referenced variables — literally and base64, hex
 * or URL-encoded. A finding names the key and the credential's variable, never the value.
 */
import {
  credentialMatcher,
  type CredentialEncoding,
} from '../../foundation/diagnostics/credential-scan.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import {
  keyLocation,
  type KeyPath,
  type KeyPositions,
} from '../../foundation/toml/key-positions.js';
import type { CredentialSource } from './credentials-types.js';

/**
 * Values shorter than this are not searched for in configuration: a short value (`1`, `true`,
 * a port) would match ordinary settings by chance.
 */
export const MIN_LITERAL_SECRET_LENGTH = 8;

export interface KnownCredential {
  /** The variable name (safe to print). */
  readonly name: string;
  readonly value: string;
}

export interface CredentialLiteral {
  /** Where the literal is, below the scanned value's base path. */
  readonly path: KeyPath;
  /** Whether the key itself (not its value) holds the credential. */
  readonly inKey: boolean;
  readonly credential: string;
  readonly encoding: CredentialEncoding;
}

/**
 * The credentials whose values are searched: every name credentials.env defines and each of
 * `referenced` (variables the registry forwards), from the environment or the file.
 */
export function knownCredentials(
  source: CredentialSource,
  referenced: Iterable<string>,
): KnownCredential[] {
  const names = new Set([...(source.fileNames?.() ?? []), ...referenced]);
  const out: KnownCredential[] = [];
  const seen = new Set<string>();
  for (const name of [...names].sort()) {
    const found = source.lookup(name);
    if (found === undefined || found.value.length < MIN_LITERAL_SECRET_LENGTH) continue;
    if (seen.has(found.value)) continue;
    seen.add(found.value);
    out.push({ name, value: found.value });
  }
  return out;
}

interface Site {
  readonly path: KeyPath;
  readonly text: string;
  readonly inKey: boolean;
}

function sitesOf(value: unknown, path: KeyPath, out: Site[]): void {
  if (typeof value === 'string') out.push({ path, text: value, inKey: false });
  else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      sitesOf(item, [...path, i], out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push({ path: [...path, key], text: key, inKey: true });
      sitesOf(item, [...path, key], out);
    }
  }
}

/** Every credential value found in `value` (plain data), one finding per key path. */
export function findCredentialLiterals(
  value: unknown,
  credentials: readonly KnownCredential[],
  base: KeyPath = [],
): CredentialLiteral[] {
  if (credentials.length === 0) return [];
  const matchers = credentials.map((c) => ({
    name: c.name,
    matcher: credentialMatcher([c.value]),
  }));
  const sites: Site[] = [];
  sitesOf(value, base, sites);
  const out: CredentialLiteral[] = [];
  for (const site of sites) {
    for (const { name, matcher } of matchers) {
      const encoding = matcher.find(site.text);
      if (encoding === undefined) continue;
      out.push({ path: site.path, inKey: site.inKey, credential: name, encoding });
      break;
    }
  }
  return out;
}

/** "the value of FOO" or "the base64 form of FOO's value", for messages. */
export function describeMatch(found: CredentialLiteral): string {
  const what =
    found.encoding === 'literal'
      ? `the value of ${found.credential}`
      : `the ${found.encoding === 'url-encoded' ? 'URL-encoded' : found.encoding} form of ${found.credential}'s value`;
  return found.inKey ? `a key that contains ${what}` : what;
}

/** Where scanned data lives, for `credentialLiteralDiagnostics`. */
export interface LiteralSource {
  readonly file?: string;
  readonly positions?: KeyPositions;
  /** Key path of the scanned value in `file`. */
  readonly base: KeyPath;
  /** What to do instead, e.g. "remove it from the pack". */
  readonly fix: string;
  /** Maps a path of the scanned data to the key path in the file (default: unchanged). */
  readonly keyOf?: (path: KeyPath) => KeyPath;
}

/** `known-credential-literal` errors for every credential value found in `value`. */
export function credentialLiteralDiagnostics(
  value: unknown,
  credentials: readonly KnownCredential[],
  source: LiteralSource,
): Diagnostic[] {
  return findCredentialLiterals(value, credentials, source.base).map((found) => {
    const raw = found.inKey ? found.path.slice(0, -1) : found.path;
    const path = source.keyOf?.(raw) ?? raw;
    const at = keyLocation(source.file, source.positions, path);
    return diagnostic({
      code: 'known-credential-literal',
      message: `${at.path === '' ? 'the file' : at.path} holds ${describeMatch(found)} (a credential from credentials.env or the launch environment); it would be copied into snapshots and Codex configs. ${source.fix}`,
      ...at,
    });
  });
}
