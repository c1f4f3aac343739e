/**
 * Decodes and parses one TOML document into plain data plus the position of every key.
 * Invalid UTF-8, NUL bytes and TOML syntax errors come back as diagnostics with file, line and
 * column; this function never throws for bad input.
 */
import { parse, TomlError } from 'smol-toml';

import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import { KeyPositions, scanKeyPositions } from './key-positions.js';

export type TomlTable = Record<string, unknown>;

export type ParsedToml =
  | { readonly ok: true; readonly value: TomlTable; readonly positions: KeyPositions }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Length of a valid UTF-8 sequence starting at `at`, or 0 when the bytes there are invalid. */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at] ?? 0;
  if (lead < 0x80) return 1;
  let length: number;
  let min = 0x80;
  let max = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) min = 0xa0;
    if (lead === 0xed) max = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) min = 0x90;
    if (lead === 0xf4) max = 0x8f;
  } else return 0;
  for (let k = 1; k < length; k++) {
    const b = bytes[at + k];
    if (b === undefined) return 0;
    if (k === 1 ? b < min || b > max : b < 0x80 || b > 0xbf) return 0;
  }
  return length;
}

/** Byte offset of the first invalid UTF-8 sequence, or -1 when all bytes are valid. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let at = 0;
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at);
    if (length === 0) return at;
    at += length;
  }
  return -1;
}

/** Strictly decodes UTF-8, reporting the line and column of the first invalid byte. */
export function decodeUtf8(
  bytes: Uint8Array,
  file: string,
): { ok: true; text: string } | { ok: false; diagnostics: Diagnostic[] } {
  try {
    return { ok: true, text: decoder.decode(bytes) };
  } catch {
    const bad = Math.max(firstInvalidUtf8(bytes), 0);
    let line = 1;
    let lineStart = 0;
    for (let k = 0; k < bad; k++) {
      if (bytes[k] === 0x0a) {
        line++;
        lineStart = k + 1;
      }
    }
    // columns count UTF-16 code units, as the TOML parser's and the key scanner's do
    const column = decoder.decode(bytes.subarray(lineStart, bad)).length + 1;
    const byte = (bytes[bad] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return {
      ok: false,
      diagnostics: [
        diagnostic({
          code: 'invalid-utf8',
          message: `file is not valid UTF-8 (byte 0x${byte} here); save it as UTF-8 text`,
          file,
          line,
          column,
        }),
      ],
    };
  }
}

/** smol-toml's terse error texts, reworded to say what to do. */
const SYNTAX_ADVICE: readonly (readonly [RegExp, string])[] = [
  [
    /redefine an already defined table or value/,
    'this key or table is already defined earlier in the file; keep one definition (merge the two, or remove one)',
  ],
  [/unfinished string/, 'this string is not closed; add the closing quote'],
  [
    /control characters are not allowed in strings/,
    'this string runs into a line break or control character; close it on the same line (use """ for text over several lines, escapes such as \\t for control characters)',
  ],
  [/unfinished array/, 'this array is not closed; add the closing ]'],
  [/unfinished table/, 'this inline table is not closed; add the closing }'],
  [
    /invalid value/,
    'this value is not valid TOML; quote strings ("text"), write booleans as true or false',
  ],
  [
    /must be followed by an end-of-line/,
    'put each key = value on its own line (or separate inline-table entries with commas)',
  ],
];

/** The message of a TOML syntax error: what is wrong and how to fix it. */
function syntaxMessage(parserMessage: string): string {
  const reason = (parserMessage.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
  for (const [pattern, advice] of SYNTAX_ADVICE) {
    if (pattern.test(reason)) return `invalid TOML: ${advice}`;
  }
  return `invalid TOML: ${reason || 'the document could not be parsed'}; correct the syntax at this position (see https://toml.io)`;
}

/** Parses TOML text; `file` is used only for diagnostics. */
export function parseTomlText(text: string, file: string): ParsedToml {
  const nul = text.indexOf('\u0000');
  if (nul !== -1) {
    const before = text.slice(0, nul);
    const line = before.split('\n').length;
    const column = nul - before.lastIndexOf('\n');
    return {
      ok: false,
      diagnostics: [
        diagnostic({
          code: 'toml-syntax',
          message:
            'file contains a NUL byte; TOML files must be plain text: remove it (or recreate the file in a text editor)',
          file,
          line,
          column,
        }),
      ],
    };
  }
  let value: TomlTable;
  try {
    value = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      return {
        ok: false,
        diagnostics: [
          diagnostic({
            code: 'toml-syntax',
            message: syntaxMessage(error.message),
            file,
            line: error.line,
            column: error.column,
          }),
        ],
      };
    }
    return {
      ok: false,
      diagnostics: [
        diagnostic({
          code: 'toml-syntax',
          message: 'invalid TOML: the document could not be parsed; check it with a TOML validator',
          file,
        }),
      ],
    };
  }
  return { ok: true, value, positions: scanKeyPositions(text) };
}

/** Decodes bytes as strict UTF-8 and parses them as TOML. */
export function parseTomlBytes(bytes: Uint8Array, file: string): ParsedToml {
  const decoded = decodeUtf8(bytes, file);
  if (!decoded.ok) return { ok: false, diagnostics: decoded.diagnostics };
  const text = decoded.text.startsWith('\uFEFF') ? decoded.text.slice(1) : decoded.text;
  return parseTomlText(text, file);
}
