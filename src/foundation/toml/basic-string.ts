/**
 * Decodes one single-line TOML basic string (`"..."`) of text the TOML parser has already
 * accepted: its escapes become their characters. Used for quoted keys by the key-position scanner.
 */

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  e: '\u001b',
  '"': '"',
  '\\': '\\',
};

/** The string opening at `start` (its `"`) and the offset just after its closing quote. */
export function decodeBasicString(text: string, start: number): { value: string; end: number } {
  const n = text.length;
  let i = start + 1;
  // common case: no escapes, so the value is a plain slice of the text
  let end = i;
  while (end < n) {
    const c = text.charCodeAt(end);
    if (c === 0x22 || c === 0x5c) break;
    end++;
  }
  if (text.charCodeAt(end) === 0x22) return { value: text.slice(i, end), end: end + 1 };
  let out = '';
  while (i < n && text[i] !== '"') {
    if (text[i] === '\\') {
      const next = text[i + 1];
      if (next === 'u' || next === 'U') {
        const len = next === 'u' ? 4 : 8;
        const cp = Number.parseInt(text.slice(i + 2, i + 2 + len), 16);
        out += Number.isNaN(cp) ? '' : String.fromCodePoint(cp);
        i += 2 + len;
        continue;
      }
      out += ESCAPES[next ?? ''] ?? next ?? '';
      i += 2;
      continue;
    }
    out += text[i] ?? '';
    i++;
  }
  return { value: out, end: i + 1 };
}
