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

/** Strictly decodes UTF-8, reporting the line and column of the first invalid byte. */
export function decodeUtf8(
  bytes: Uint8Array,
  file: string,
): { ok: true; text: string } | { ok: false; diagnostics: Diagnostic[] } {
  try {
    return { ok: true, text: decoder.decode(bytes) };
  } catch {
    // locate the first invalid sequence by decoding growing prefixes of valid lines
    let line = 1;
    let lineStart = 0;
    for (let k = 0; k < bytes.length; k++) {
      if (bytes[k] === 0x0a) {
        try {
          decoder.decode(bytes.subarray(lineStart, k));
        } catch {
          break;
        }
        line++;
        lineStart = k + 1;
      }
    }
    return {
      ok: false,
      diagnostics: [
        diagnostic({
          code: 'invalid-utf8',
          message: 'file is not valid UTF-8; save it as UTF-8 text',
          file,
          line,
          column: 1,
        }),
      ],
    };
  }
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
          message: 'file contains a NUL byte; TOML files must be plain text',
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
      const firstLine = error.message.split('\n')[0] ?? 'invalid TOML';
      return {
        ok: false,
        diagnostics: [
          diagnostic({
            code: 'toml-syntax',
            message: `invalid TOML: ${firstLine.replace(/^Invalid TOML document: /, '')}`,
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
          message: 'invalid TOML: the document could not be parsed',
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
