/**
 * Finds credential values in tool-call arguments (pure): a value appears literally, base64
 * (standard or URL-safe alphabet, at any byte alignment inside a longer encoded text), hex (either
 * case) or URL-encoded (any percent-encoding, `+` for spaces). Every string of the arguments is
 * searched, keys included. Only the fact is reported, never which value matched or where.
 */

/** Values shorter than this are matched only literally, as whole tokens (encodings would match by chance). */
export const MIN_ENCODED_SECRET_LENGTH = 4;
/** Shortest base64 fragment accepted as evidence of an encoded value at an unaligned offset. */
const MIN_BASE64_FRAGMENT = 6;

export type CredentialEncoding = 'literal' | 'base64' | 'hex' | 'url-encoded';

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

export function credentialMatcher(values: readonly string[]): CredentialMatcher {
  const distinct = [...new Set(values)].filter((v) => v !== '');
  const long = distinct.filter((v) => v.length >= MIN_ENCODED_SECRET_LENGTH);
  const short = distinct
    .filter((v) => v.length < MIN_ENCODED_SECRET_LENGTH)
    .map((v) => new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(v)}(?![A-Za-z0-9])`));
  const base64 = long.flatMap((v) => {
    const fragments = base64Fragments(v);
    return [...fragments, ...fragments.map(toUrlSafe)];
  });
  const hex = long.map((v) => Buffer.from(v, 'utf8').toString('hex'));
  const literal = (text: string): boolean =>
    long.some((v) => text.includes(v)) || short.some((re) => re.test(text));
  return {
    find(text) {
      if (literal(text)) return 'literal';
      if (base64.some((fragment) => text.includes(fragment))) return 'base64';
      const lower = text.toLowerCase();
      if (hex.some((h) => lower.includes(h))) return 'hex';
      if (/%[0-9a-fA-F]{2}|\+/.test(text)) {
        let decoded: string | undefined;
        try {
          decoded = decodeURIComponent(text.replace(/\+/g, ' '));
        } catch {
          decoded = text.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) =>
            String.fromCharCode(parseInt(h, 16)),
          );
        }
        if (decoded !== text && literal(decoded)) return 'url-encoded';
        try {
          const plus = decodeURIComponent(text);
          if (plus !== text && literal(plus)) return 'url-encoded';
        } catch {
          // not valid percent-encoding as a whole
        }
      }
      return undefined;
    },
  };
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

/** The encoding of the first credential value found anywhere in `args`, or undefined. */
export function findCredentialIn(
  args: unknown,
  matcher: CredentialMatcher,
): CredentialEncoding | undefined {
  for (const text of stringsOf(args)) {
    const found = matcher.find(text);
    if (found !== undefined) return found;
  }
  return undefined;
}
