/**
 * The normal forms the credential check compares (pure): a text without invisible characters
 * (zero-width spaces and joiners, word joiner, byte-order mark, soft hyphen), without separators
 * (whitespace and `: . _ , ; | / \ -`) and case-folded, its base64 characters and its hex digits as
 * one run, and a number's decimal texts. Characters are dropped in one pass over a lookup table.
 */

/** Zero-width space, non-joiner and joiner, word joiner, byte-order mark, soft hyphen. */
const INVISIBLE = [0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad];
const INVISIBLE_TEXT = /[\u00ad\u200b-\u200d\u2060\ufeff]/;
/** What `\s` matches in a regular expression. */
const WHITESPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
];

function table(extra: string): Uint8Array {
  const out = new Uint8Array(0x10000);
  for (const code of [...INVISIBLE, ...WHITESPACE]) out[code] = 1;
  for (const c of extra) out[c.charCodeAt(0)] = 1;
  return out;
}

/** Invisible characters, whitespace and punctuation used as separators between a value's parts. */
const SEPARATOR = table(':._,;|/\\-');
/** Invisible characters and those in neither base64 alphabet, removed before base64 is sought. */
const BASE64_BREAK = table(':.,;|');
const CHUNK = 8192;

/** `text` without the characters `drop` marks (the text itself when it has none). */
function without(text: string, drop: Uint8Array): string {
  const codes = new Uint16Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (drop[c] === 0) codes[n++] = c;
  }
  if (n === text.length) return text;
  let out = '';
  for (let i = 0; i < n; i += CHUNK) {
    const chunk = codes.subarray(i, Math.min(n, i + CHUNK));
    out += String.fromCharCode.apply(null, chunk as unknown as number[]);
  }
  return out;
}

/** `text` without zero-width characters, the word joiner, the byte-order mark and soft hyphens. */
export function withoutInvisible(text: string): string {
  return INVISIBLE_TEXT.test(text) ? text.replace(/[\u00ad\u200b-\u200d\u2060\ufeff]+/g, '') : text;
}

/** A text with separators removed and its case folded (the form loose matching compares). */
export function normaliseText(text: string): string {
  return without(text, SEPARATOR).toLowerCase();
}

/** A text without what separates base64 groups: whitespace, invisible characters, `: . , ; |`. */
export function base64Run(text: string): string {
  return without(text, BASE64_BREAK);
}

/** A text's hex digits as one run: lower case, `0x`/`\x` prefixes and separators removed. */
export function hexDigits(text: string): string {
  return without(text.toLowerCase().replace(/\\x|0x/g, ''), SEPARATOR);
}

/** Whether `code` is a separator (or invisible): it does not count toward a match's length. */
export function isSeparator(code: number): boolean {
  return code < 0x10000 && SEPARATOR[code] === 1;
}

/** The decimal texts of a number: as JSON writes it and, for a large integer, in full. */
export function numberTexts(value: number): string[] {
  const text = String(value);
  if (!Number.isFinite(value) || !Number.isInteger(value) || !/e/i.test(text)) return [text];
  return [text, BigInt(value).toString()];
}
