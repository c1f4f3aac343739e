/**
 * Strict parser for `credentials.env` (dotenv syntax): `NAME=value` lines, `export NAME=value`,
 * `#` comment lines, single-, double- and backtick-quoted values (which may span lines). Anything
 * a lenient parser would silently cut, keep or replace — a `#` inside an unquoted value, an
 * unterminated quote, a NUL, invalid UTF-8, a line that is not an assignment — is a problem with
 * its line and column, naming the variable when there is one, never the value.
 */

export type DotenvProblemCode =
  | 'credentials-syntax'
  | 'credentials-unterminated-quote'
  | 'credentials-value-hash'
  | 'credentials-nul-character'
  | 'credentials-invalid-utf8';

export interface DotenvProblem {
  readonly code: DotenvProblemCode;
  readonly line: number;
  readonly column: number;
  /** The variable the problem is about, when the line names one. */
  readonly name?: string;
  readonly message: string;
}

export interface ParsedDotenv {
  /** Parsed values (a null-prototype record); variables with a problem are left out. */
  readonly values: Readonly<Record<string, string>>;
  readonly problems: readonly DotenvProblem[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const QUOTES = new Set(['"', "'", '`']);

/** 1-based line numbers of lines that are not valid UTF-8, with the column of the first bad byte. */
function invalidUtf8Lines(bytes: Uint8Array): Map<number, number> {
  const bad = new Map<number, number>();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  let line = 1;
  for (let k = 0; k <= bytes.length; k++) {
    if (k === bytes.length || bytes[k] === 0x0a) {
      const slice = bytes.subarray(start, k);
      let ascii = true;
      for (const b of slice) {
        if (b >= 0x80) {
          ascii = false;
          break;
        }
      }
      if (!ascii) {
        try {
          decoder.decode(slice);
        } catch {
          bad.set(line, firstInvalidByte(slice) + 1);
        }
      }
      start = k + 1;
      line++;
    }
  }
  return bad;
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidByte(slice: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let k = 0;
  while (k < slice.length) {
    const b = slice[k] ?? 0;
    const size =
      b < 0x80
        ? 1
        : b >= 0xc2 && b < 0xe0
          ? 2
          : b >= 0xe0 && b < 0xf0
            ? 3
            : b >= 0xf0 && b < 0xf5
              ? 4
              : 0;
    if (size === 0) return k;
    try {
      decoder.decode(slice.subarray(k, k + size));
    } catch {
      return k;
    }
    k += size;
  }
  return 0;
}

/** Parses `credentials.env` bytes (pure). */
export function parseDotenv(bytes: Uint8Array): ParsedDotenv {
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  const problems: DotenvProblem[] = [];
  const badUtf8 = invalidUtf8Lines(bytes);
  let text = new TextDecoder('utf-8').decode(bytes);
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const reportedUtf8 = new Set<number>();
  const utf8Problem = (line: number, name?: string): void => {
    reportedUtf8.add(line);
    problems.push({
      code: 'credentials-invalid-utf8',
      line,
      column: badUtf8.get(line) ?? 1,
      ...(name !== undefined ? { name } : {}),
      message: `${name !== undefined ? `the value of ${name}` : 'this line'} is not valid UTF-8; save credentials.env as UTF-8`,
    });
  };

  let index = 0;
  while (index < lines.length) {
    const lineNo = index + 1;
    const raw = lines[index] ?? '';
    index++;
    let rest = raw.trimStart();
    let column = raw.length - rest.length + 1;
    if (rest === '' || rest.startsWith('#')) {
      if (badUtf8.has(lineNo) && rest !== '') reportedUtf8.add(lineNo); // a comment may be any text
      continue;
    }
    const exported = /^export[ \t]+/.exec(rest);
    if (exported !== null) {
      rest = rest.slice(exported[0].length);
      column += exported[0].length;
    }
    const nameMatch = NAME.exec(rest);
    const afterName = nameMatch === null ? rest : rest.slice(nameMatch[0].length).trimStart();
    if (nameMatch === null || !afterName.startsWith('=')) {
      if (badUtf8.has(lineNo)) {
        utf8Problem(lineNo);
        continue;
      }
      problems.push({
        code: 'credentials-syntax',
        line: lineNo,
        column,
        message:
          'this line is not a NAME=value assignment (nor a # comment); write one NAME=value per line, with NAME made of letters, digits and _',
      });
      continue;
    }
    const name = nameMatch[0];
    const valueOffset = rest.length - afterName.length + 1;
    let value = afterName.slice(1);
    const leading = value.length - value.trimStart().length;
    value = value.trimStart();
    const valueColumn = column + valueOffset + leading;
    const startLine = lineNo;
    let endLine = lineNo;
    let parsed: string | undefined;
    const quote = value[0];
    if (quote !== undefined && QUOTES.has(quote)) {
      // the closing quote may be on a later line (a multi-line value); `\"` does not close
      // scan each line once (joining a growing string and indexing it would be quadratic)
      const scanner = new QuoteScanner(quote);
      const parts: string[] = [];
      let segment = value.slice(1);
      let close = scanner.scan(segment);
      while (close < 0 && index < lines.length) {
        parts.push(segment);
        segment = lines[index] ?? '';
        index++;
        endLine++;
        scanner.newline();
        close = scanner.scan(segment);
      }
      if (close < 0) {
        problems.push({
          code: 'credentials-unterminated-quote',
          line: startLine,
          column: valueColumn,
          name,
          message: `the value of ${name} opens a ${quote} quote that is never closed; add the closing ${quote} (everything after it was ignored)`,
        });
        break;
      }
      const trailing = segment.slice(close + 1);
      if (trailing.trim() !== '' && !/^\s+#/.test(trailing) && !trailing.startsWith('#')) {
        problems.push({
          code: 'credentials-syntax',
          line: endLine,
          column: 1,
          name,
          message: `the value of ${name} has text after its closing quote; put the whole value inside the quotes, or start a comment with " #"`,
        });
        continue;
      }
      parts.push(segment.slice(0, close));
      parsed = parts.join('\n');
      if (quote === '"') parsed = parsed.replace(/\\n/g, '\n').replace(/\\r/g, '\r');
    } else {
      // an unquoted value ends at whitespace followed by # (a comment); a # inside it is an error
      const comment = /\s#/.exec(value);
      const body = (comment === null ? value : value.slice(0, comment.index)).trimEnd();
      const hash = body.indexOf('#');
      if (hash >= 0) {
        problems.push({
          code: 'credentials-value-hash',
          line: lineNo,
          column: valueColumn + hash,
          name,
          message: `the value of ${name} contains "#", which dotenv readers treat as the start of a comment and would cut the value there; put the value in single quotes: ${name}='…'`,
        });
        continue;
      }
      parsed = body;
    }
    let badLine: number | undefined;
    for (let l = startLine; l <= endLine; l++) if (badUtf8.has(l)) badLine ??= l;
    if (badLine !== undefined) {
      utf8Problem(badLine, name);
      for (let l = startLine; l <= endLine; l++) if (badUtf8.has(l)) reportedUtf8.add(l);
      continue;
    }
    if (parsed.includes('\u0000')) {
      problems.push({
        code: 'credentials-nul-character',
        line: startLine,
        column: valueColumn,
        name,
        message: `the value of ${name} contains a NUL character, which no environment variable can hold; remove it`,
      });
      continue;
    }
    values[name] = parsed;
  }
  for (const [line, column] of badUtf8) {
    if (reportedUtf8.has(line) || line > lines.length) continue;
    problems.push({
      code: 'credentials-invalid-utf8',
      line,
      column,
      message: 'this line is not valid UTF-8; save credentials.env as UTF-8',
    });
  }
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { values, problems };
}

/** Finds the quote that closes a quoted value, line by line; a backslash escapes (not in '…'). */
class QuoteScanner {
  private escaped = false;
  constructor(private readonly quote: string) {}

  /** Index in `segment` of the closing quote, or -1. */
  scan(segment: string): number {
    for (let k = 0; k < segment.length; k++) {
      const c = segment[k];
      if (this.escaped) {
        this.escaped = false;
        continue;
      }
      if (c === '\\' && this.quote !== "'") {
        this.escaped = true;
        continue;
      }
      if (c === this.quote) return k;
    }
    return -1;
  }

  newline(): void {
    this.escaped = false;
  }
}
