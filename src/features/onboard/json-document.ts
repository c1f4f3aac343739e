/**
 * Parses a JSON document (an MCP client's or registry's file) into plain data plus the line and
 * column of every key and array item, so import diagnostics can point at `file:line:col`. A syntax
 * error comes back as one `import-syntax` diagnostic with its position; this never throws.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { KeyPositions, type KeyPath } from '../../foundation/toml/key-positions.js';

export type ParsedJson =
  | { readonly ok: true; readonly value: unknown; readonly positions: KeyPositions }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** Line and column (1-based) of a UTF-16 offset in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

const WHITESPACE = /[ \t\r\n]*/y;
const STRING_BODY = /"(?:[^"\\]|\\.)*"/y;
const SCALAR = /[^,\]}\s]*/y;

/** Records the position of every key and array item of a document JSON.parse accepted. */
function scanPositions(text: string): KeyPositions {
  const positions = new KeyPositions();
  let i = 0;
  const skip = (): void => {
    WHITESPACE.lastIndex = i;
    WHITESPACE.test(text);
    i = WHITESPACE.lastIndex;
  };
  const stringAt = (): string => {
    STRING_BODY.lastIndex = i;
    const match = STRING_BODY.exec(text);
    const raw = match?.[0] ?? '""';
    i += raw.length;
    return JSON.parse(raw) as string;
  };
  const value = (path: KeyPath): void => {
    skip();
    const c = text[i];
    if (c === '{') {
      i++;
      skip();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skip();
        const at = lineColumn(text, i);
        const key = stringAt();
        positions.set([...path, key], at);
        skip();
        i++; // ':'
        value([...path, key]);
        skip();
        if (text[i++] !== ',') return;
      }
    }
    if (c === '[') {
      i++;
      skip();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        skip();
        positions.set([...path, index], lineColumn(text, i));
        value([...path, index]);
        skip();
        if (text[i++] !== ',') return;
      }
    }
    if (c === '"') {
      stringAt();
      return;
    }
    SCALAR.lastIndex = i;
    SCALAR.test(text);
    i = SCALAR.lastIndex;
  };
  value([]);
  return positions;
}

/** Parses JSON text; `file` is used only for diagnostics. */
export function parseJsonDocument(text: string, file: string): ParsedJson {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    const value: unknown = JSON.parse(body);
    return { ok: true, value, positions: scanPositions(body) };
  } catch (error) {
    // the parser's message may quote the document (and a secret in it): keep only its first words
    const message = error instanceof Error ? error.message : String(error);
    const reason = (message.split('\n')[0] ?? '')
      .split('"')[0]
      ?.replace(/ in JSON at.*$/, '')
      .replace(/[\s,.]+$/, '');
    const offset = /position (\d+)/.exec(message)?.[1];
    const at = offset !== undefined ? lineColumn(body, Number(offset)) : undefined;
    return {
      ok: false,
      diagnostics: [
        diagnostic({
          code: 'import-syntax',
          message: `the file is not valid JSON (${reason ?? 'syntax error'}); correct the syntax${at !== undefined ? ' at this position' : ''}`,
          file,
          ...(at ?? {}),
        }),
      ],
    };
  }
}
