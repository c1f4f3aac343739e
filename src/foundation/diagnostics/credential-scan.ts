/**
 * Finds credential values in what a client sends (pure): every string, number (its decimal text)
 * and object key of a message's params, and the texts its values make when joined
 * (credential-joins). A value is found literally; in base64 (standard or URL-safe, at any byte
 * alignment, wrapped or spaced); in hex (either case, with or without `0x`/`\x` and separators
 * between digits); and URL-encoded (repeatedly); always after invisible characters are removed.
 * Only the fact is reported, never which value matched or where.
 */
import { joinsOf } from './credential-joins.js';
import {
  base64Run,
  hexDigits,
  normaliseText,
  numberTexts,
  withoutInvisible,
} from './credential-text.js';

/** Values shorter than this are matched only literally, as whole tokens (encodings would match by chance). */
export const MIN_ENCODED_SECRET_LENGTH = 4;
/** Values at least this long are also found with separators inserted or their case changed. */
export const MIN_NORMALISED_SECRET_LENGTH = 8;
/** Shortest base64 fragment accepted as evidence of an encoded value at an unaligned offset. */
const MIN_BASE64_FRAGMENT = 6;
/** How many layers of URL-encoding are taken off. */
const URL_DECODE_DEPTH = 3;

export type CredentialEncoding = 'literal' | 'base64' | 'hex' | 'url-encoded';

/**
 * How many non-separator characters a value's most stretched recognised form spans per byte of
 * the value (hex with `0x` prefixes, URL-encoded three times), with room to spare.
 */
const SPAN_PER_BYTE = 128;

/**
 * The base64 fragments that appear in any base64 text containing `value`'s bytes, one per byte
 * alignment (0, 1 or 2 bytes before it): the 4-character groups made of the value's bytes alone.
 */
export function base64Fragments(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const encoded = padded.toString('base64');
    const firstGroup = Math.ceil(offset / 3);
    const lastGroup = Math.floor(padded.length / 3); // exclusive
    if (lastGroup <= firstGroup) continue;
    // the value's own tail group (with padding) is exact when it ends the text
    const fragment = encoded.slice(firstGroup * 4, lastGroup * 4);
    if (fragment.length >= MIN_BASE64_FRAGMENT || (offset === 0 && fragment.length > 0)) {
      out.add(fragment);
    }
  }
  if (out.size === 0) out.add(bytes.toString('base64').replace(/=+$/, ''));
  return [...out];
}

function toUrlSafe(text: string): string {
  return text.replace(/\+/g, '-').replace(/\//g, '_');
}

/** Precomputed forms of the session's credential values, for repeated scans. */
export interface CredentialMatcher {
  /** The encoding in which some value appears in `text`, or undefined. */
  find(text: string): CredentialEncoding | undefined;
  /** The most non-separator characters any recognised form of any value spans. */
  readonly span: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One layer of URL-decoding (`+` as space when asked); the text itself when nothing decodes. */
function urlDecode(text: string, plus: boolean): string {
  const input = plus ? text.replace(/\+/g, ' ') : text;
  try {
    return decodeURIComponent(input);
  } catch {
    return input.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) =>
      String.fromCharCode(parseInt(h, 16)),
    );
  }
}

export function credentialMatcher(values: readonly string[]): CredentialMatcher {
  const distinct = [...new Set(values.map(withoutInvisible))].filter((v) => v !== '');
  const long = distinct.filter((v) => v.length >= MIN_ENCODED_SECRET_LENGTH);
  const short = distinct
    .filter((v) => v.length < MIN_ENCODED_SECRET_LENGTH)
    .map((v) => new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(v)}(?![A-Za-z0-9])`));
  const loose = long.map(normaliseText).filter((v) => v.length >= MIN_NORMALISED_SECRET_LENGTH);
  const base64 = long.flatMap((v) => {
    const fragments = base64Fragments(v);
    return [...fragments, ...fragments.map(toUrlSafe)];
  });
  const hex = long.map((v) => Buffer.from(v, 'utf8').toString('hex'));
  const plusMatters = [...distinct, ...base64].some((form) => form.includes('+'));
  const literal = (text: string): boolean => {
    if (long.some((v) => text.includes(v)) || short.some((re) => re.test(text))) return true;
    if (loose.length === 0) return false;
    const normal = normaliseText(text);
    return loose.some((v) => normal.includes(v));
  };
  const find = (raw: string, depth: number): CredentialEncoding | undefined => {
    const text = withoutInvisible(raw);
    if (literal(text)) return depth === 0 ? 'literal' : 'url-encoded';
    const unbroken = base64Run(text);
    if (base64.some((fragment) => unbroken.includes(fragment))) return 'base64';
    const digits = hexDigits(text);
    if (hex.some((h) => digits.includes(h))) return 'hex';
    if (depth < URL_DECODE_DEPTH && /%[0-9a-fA-F]{2}|\+/.test(text)) {
      // `+` read as a space finds everything `+` kept does, unless some form holds a `+`
      const decoded = new Set([urlDecode(text, true)]);
      if (plusMatters) decoded.add(urlDecode(text, false));
      decoded.delete(text);
      for (const next of decoded) {
        if (find(next, depth + 1) !== undefined) return 'url-encoded';
      }
    }
    return undefined;
  };
  const longest = Math.max(0, ...distinct.map((v) => Buffer.byteLength(v, 'utf8')));
  return { find: (text) => find(text, 0), span: SPAN_PER_BYTE * longest + 64 };
}

/**
 * Every text inside plain JSON data: strings, object keys, numbers' decimal texts, then every
 * text its values make when joined (credential-joins), parts clipped to `span`.
 */
export function textsOf(value: unknown, span = Number.MAX_SAFE_INTEGER): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number') out.push(...numberTexts(v));
    else if (Array.isArray(v)) for (const item of v) walk(item);
    else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        out.push(key);
        walk(item);
      }
    }
  };
  walk(value);
  for (const join of joinsOf(value, span)) out.push(join.text(0, join.parts.length));
  return out;
}

/** Every string inside plain JSON data (object keys included). */
export function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      stringsOf(item, out);
    }
  }
  return out;
}

/** The encoding of the first credential value found anywhere in `value`, or undefined. */
export function findCredentialIn(
  value: unknown,
  matcher: CredentialMatcher,
): CredentialEncoding | undefined {
  for (const text of textsOf(value, matcher.span)) {
    const found = matcher.find(text);
    if (found !== undefined) return found;
  }
  return undefined;
}
