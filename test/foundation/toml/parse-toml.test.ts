/**
 * Decoding and parsing fragments: syntax errors, invalid UTF-8 and NUL bytes come back as
 * diagnostics at the exact line and column, with a message that says how to fix the file.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { Diagnostic } from '../../../src/foundation/diagnostics/diagnostic.js';
import {
  firstInvalidUtf8,
  parseTomlBytes,
  parseTomlText,
} from '../../../src/foundation/toml/parse-toml.js';

function failure(result: ReturnType<typeof parseTomlText>): Diagnostic {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('parsed');
  expect(result.diagnostics).toHaveLength(1);
  return result.diagnostics[0]!;
}

describe('parseTomlText', () => {
  it('reports syntax errors with line and column', () => {
    const d = failure(parseTomlText('a = [1,\n2\nb=3', 'x.toml'));
    expect(d).toMatchObject({ code: 'toml-syntax', file: 'x.toml', line: 3 });
  });

  it('says how to fix common syntax errors', () => {
    const cases: [string, RegExp][] = [
      ['a = 1\na = 2\n', /already defined earlier in the file; keep one definition/],
      ['a = "open', /not closed; add the closing quote/],
      ['a = "open\n', /runs into a line break or control character; close it on the same line/],
      ['a = [1,', /not closed; add the closing \]/],
      ['a = tru\n', /quote strings/],
      ['a = 1 b = 2\n', /on its own line/],
      ['[x\n', /correct the syntax at this position/],
    ];
    for (const [text, advice] of cases) {
      const d = failure(parseTomlText(text, 'x.toml'));
      expect(d.code).toBe('toml-syntax');
      expect(d.message).toMatch(advice);
      expect(d.line).toBeGreaterThanOrEqual(1);
      expect(d.column).toBeGreaterThanOrEqual(1);
    }
  });

  it('rejects a NUL byte at its position', () => {
    const d = failure(parseTomlText('a = 1\nb = 2\u0000\n', 'nul.toml'));
    expect(d).toMatchObject({ code: 'toml-syntax', line: 2, column: 6 });
    expect(d.message).toContain('NUL byte');
  });
});

describe('parseTomlBytes', () => {
  it('rejects invalid UTF-8 at the line and character column of the bad byte', () => {
    const bytes = new Uint8Array([...Buffer.from('a = 1\nb = "é€'), 0xff, ...Buffer.from('"\n')]);
    const d = failure(parseTomlBytes(bytes, 'bad.toml'));
    // `b = "é€` is seven characters (nine bytes): the bad byte is the eighth character
    expect(d).toMatchObject({ code: 'invalid-utf8', file: 'bad.toml', line: 2, column: 8 });
    expect(d.message).toBe('file is not valid UTF-8 (byte 0xFF here); save it as UTF-8 text');
  });

  it('reports a sequence cut off at the end of the file', () => {
    const d = failure(parseTomlBytes(new Uint8Array([0x61, 0x0a, 0xe2, 0x82]), 'cut.toml'));
    expect(d).toMatchObject({ code: 'invalid-utf8', line: 2, column: 1 });
  });

  it('skips a byte-order mark', () => {
    const r = parseTomlBytes(new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('a = 1\n')]), 'bom');
    expect(r.ok && r.value).toEqual({ a: 1 });
  });
});

describe('firstInvalidUtf8', () => {
  const strict = new TextDecoder('utf-8', { fatal: true });
  const valid = (bytes: Uint8Array): boolean => {
    try {
      strict.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };

  it('agrees with a strict decoder on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        const at = firstInvalidUtf8(bytes);
        expect(at === -1).toBe(valid(bytes));
        if (at !== -1) {
          expect(valid(bytes.subarray(0, at))).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects overlong forms, surrogates and code points above U+10FFFF', () => {
    for (const bytes of [
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5, 0x80, 0x80, 0x80],
    ]) {
      expect(firstInvalidUtf8(new Uint8Array(bytes))).toBe(0);
    }
    expect(firstInvalidUtf8(new TextEncoder().encode('ok é € 𝄞'))).toBe(-1);
  });
});
