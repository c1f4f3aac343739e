/**
 * Text made safe to print for a person (pure): every character that could move the cursor, end a
 * line, start a terminal sequence (OSC 52 clipboard writes, window titles, colours) or reorder or
 * hide text is replaced by a visible escape such as `\n`, `\x1b` or `\u202e`, so that text a
 * model, a server or a file wrote can neither forge a line nor drive the terminal.
 */

/**
 * What is escaped: control characters (C0 with `\n`, `\r`, `\t` and ESC, DEL, C1), format
 * characters (bidi marks, embeddings, overrides and isolates, zero-width characters, the BOM,
 * invisible tag characters), line and paragraph separators and lone surrogates — by Unicode
 * category, with the bidi and zero-width marks listed once more by name.
 */
const UNSAFE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0xa0) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** How `terminalSafe` treats the layout of multi-line text. */
export interface TerminalSafeOptions {
  /**
   * Keep line breaks (`\n`, `\r\n`) and tabs as they are, for text read as a document (a model's
   * final answer, a stream of stderr); every other character is escaped as usual. Off by
   * default: one record, one line.
   */
  readonly keepLayout?: boolean;
}

/** Escapes one piece of text that holds no layout to keep. */
function escapeAll(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/**
 * `text` with every control, format and separator character written as a visible escape:
 * `\n`, `\r`, `\t`, `\xHH` for the other C0 and C1 controls and DEL, `\uHHHH` and `\u{HHHHH}`
 * for the rest. Printable text (`é`, `中`, emoji) stays as it is. The result is one line unless
 * `keepLayout` is set. Backslashes are kept as they are: the escapes are for reading, and
 * `--json` output carries the exact text.
 */
export function terminalSafe(text: string, options: TerminalSafeOptions = {}): string {
  if (options.keepLayout !== true) return escapeAll(text);
  return text
    .split(/(\r?\n|\t)/)
    .map((part, i) => (i % 2 === 1 ? (part === '\t' ? '\t' : '\n') : escapeAll(part)))
    .join('');
}
