/**
 * Finds credential values in what a client sends (pure): every string, number (its decimal text)
 * and object key of a message's params, and the texts its arrays and values make when joined. A
 * value is found literally; in base64 (standard or URL-safe, at any byte alignment, wrapped or
 * spaced); in hex (either case, with or without `0x`/`\x` and separators between digits); and
 * URL-encoded (repeatedly). Only the fact is reported, never which value matched or where.
 */

/** Values shorter than this are matched only literally, as whole tokens (encodings would match by chance). */
export const MIN_ENCODED_SECRET_LENGTH = 4;
/** Values at least this long are also found with separators inserted or their case changed. */
export const MIN_NORMALISED_SECRET_LENGTH = 8;
/** Shortest base64 fragment accepted as evidence of an encoded value at an unaligned offset. */
const MIN_BASE64_FRAGMENT = 6;
/** How many layers of URL-encoding are taken off. */
const URL_DECODE_DEPTH = 3;

export type CredentialEncoding = 'literal' | 'base64' | 'hex' | 'url-encoded';

/** Characters removed between the parts of a value: whitespace and punctuation used as separators. */
const SEPARATORS = /[\s:._,;|/\\-]+/g;
/** Characters that are in neither base64 alphabet: removed from a text before base64 is sought. */
const BASE64_BREAKS = /[\s:.,;|]+/g;

/** A text with separators removed and its case folded (the form loose matching compares). */
export function normaliseText(text: string): string {
  return text.replace(SEPARATORS, '').toLowerCase();
}

/** A text's hex digits as one run: lower case, `0x`/`\x` prefixes and separators removed. */
export function hexDigits(text: string): string {
  return text
    .toLowerCase()
    .replace(/\\x|0x/g, '')
    .replace(SEPARATORS, '');
}

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
  const distinct = [...new Set(values)].filter((v) => v !== '');
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
  const literal = (text: string): boolean => {
    if (long.some((v) => text.includes(v)) || short.some((re) => re.test(text))) return true;
    if (loose.length === 0) return false;
    const normal = normaliseText(text);
    return loose.some((v) => normal.includes(v));
  };
  const find = (text: string, depth: number): CredentialEncoding | undefined => {
    if (literal(text)) return depth === 0 ? 'literal' : 'url-encoded';
    const unbroken = text.replace(BASE64_BREAKS, '');
    if (base64.some((fragment) => unbroken.includes(fragment))) return 'base64';
    const digits = hexDigits(text);
    if (hex.some((h) => digits.includes(h))) return 'hex';
    if (depth < URL_DECODE_DEPTH && /%[0-9a-fA-F]{2}|\+/.test(text)) {
      for (const plus of [true, false]) {
        const decoded = urlDecode(text, plus);
        if (decoded === text) continue;
        if (find(decoded, depth + 1) !== undefined) return 'url-encoded';
      }
    }
    return undefined;
  };
  return { find: (text) => find(text, 0) };
}

/** The decimal texts of a number: as JSON writes it and, for a large integer, in full. */
export function numberTexts(value: number): string[] {
  const text = String(value);
  if (!Number.isFinite(value) || !Number.isInteger(value) || !/e/i.test(text)) return [text];
  return [text, BigInt(value).toString()];
}

/** The texts an array stands for when its items are joined: as text, and as bytes. */
function joinedTexts(items: readonly unknown[]): string[] {
  const scalars = items.filter((i) => typeof i === 'string' || typeof i === 'number');
  if (scalars.length < 2) return [];
  const out = [scalars.map((i) => (typeof i === 'number' ? numberTexts(i)[0] : i)).join('')];
  const bytes = items.every(
    (i) => typeof i === 'number' && Number.isInteger(i) && i >= 0 && i < 256,
  );
  if (bytes && items.length >= MIN_ENCODED_SECRET_LENGTH) {
    const buffer = Buffer.from(items as number[]);
    out.push(buffer.toString('utf8'), buffer.toString('latin1'));
  }
  return out;
}

/**
 * Every text inside plain JSON data: strings, object keys, numbers' decimal texts, each array's
 * items joined (as text and as bytes), and finally every string and number in order, joined, and
 * every key in order, joined.
 */
export function textsOf(value: unknown): string[] {
  const out: string[] = [];
  const leaves: string[] = [];
  const keys: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      out.push(v);
      leaves.push(v);
    } else if (typeof v === 'number') {
      const texts = numberTexts(v);
      out.push(...texts);
      leaves.push(texts[0] ?? '');
    } else if (Array.isArray(v)) {
      out.push(...joinedTexts(v));
      for (const item of v) walk(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        out.push(key);
        keys.push(key);
        walk(item);
      }
    }
  };
  walk(value);
  if (leaves.length > 1) out.push(leaves.join(''));
  if (keys.length > 1) out.push(keys.join(''));
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
  for (const text of textsOf(value)) {
    const found = matcher.find(text);
    if (found !== undefined) return found;
  }
  return undefined;
}
