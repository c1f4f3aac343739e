/**
 * The one newline-delimited JSON framer: lines cut anywhere (even inside a multi-byte
 * character) come out whole, CRLF and blank lines are handled, the byte limit stops the framer
 * once, a last line without its newline counts only at `end()`, and bad JSON is reported.
 */
import { describe, expect, it } from 'vitest';

import { JsonLineDecoder, LineSplitter, encodeJsonLine } from '../../src/foundation/json-lines.js';

function splitAll(chunks: readonly (Buffer | string)[], max?: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter(
    (line) => lines.push(line),
    max === undefined ? {} : { maxLineLength: max },
  );
  for (const chunk of chunks) splitter.push(chunk);
  return lines;
}

describe('LineSplitter', () => {
  it('joins a line split into single bytes, multi-byte characters included', () => {
    const bytes = Buffer.from('héllo 🙂 wörld\nzweite Zeile ✓\n');
    const chunks = [...bytes].map((byte) => Buffer.from([byte]));
    expect(splitAll(chunks)).toEqual(['héllo 🙂 wörld', 'zweite Zeile ✓']);
  });

  it('splits several lines in one chunk and keeps the unfinished one', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push('a\nb\nc');
    expect(lines).toEqual(['a', 'b']);
    splitter.push('d\n');
    expect(lines).toEqual(['a', 'b', 'cd']);
  });

  it('drops a trailing CR, also when the CR and LF arrive in different chunks', () => {
    expect(splitAll(['one\r\ntwo\r', '\n', 'three\n'])).toEqual(['one', 'two', 'three']);
  });

  it('skips empty and blank lines but keeps inner spaces', () => {
    expect(splitAll(['\n\n  \n\r\n', ' x y \n', '\t\n'])).toEqual([' x y ']);
  });

  it('emits a last line without newline only at end()', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push('first\nlast');
    expect(lines).toEqual(['first']);
    splitter.end();
    splitter.end();
    expect(lines).toEqual(['first', 'last']);
  });

  it('accepts a line of exactly the limit in bytes and stops at one byte more', () => {
    // 'é' is two bytes: the limit counts bytes, not characters
    expect(splitAll(['éé\n'], 4)).toEqual(['éé']);
    let overflows = 0;
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), {
      maxLineLength: 4,
      onOverflow: () => overflows++,
    });
    splitter.push('ok\néé');
    splitter.push('x');
    splitter.push('\nlater\n');
    expect(lines).toEqual(['ok']);
    expect(overflows).toBe(1);
  });

  it('stops at a complete over-long line inside one chunk', () => {
    let overflows = 0;
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), {
      maxLineLength: 3,
      onOverflow: () => overflows++,
    });
    splitter.push('abc\nabcd\nabc\n');
    splitter.end();
    expect(lines).toEqual(['abc']);
    expect(overflows).toBe(1);
  });

  it('takes a raised limit from the next byte on', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), { maxLineLength: 2 });
    splitter.setMaxLineLength(10);
    splitter.push('0123456789\n');
    expect(lines).toEqual(['0123456789']);
  });

  it('stops within a chunk when a line handler stops it', () => {
    const lines: string[] = [];
    const splitter: LineSplitter = new LineSplitter((line) => {
      lines.push(line);
      splitter.stop();
    });
    splitter.push('a\nb\nc\n');
    expect(lines).toEqual(['a']);
  });

  it('stop() ignores everything after it, pending bytes included', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    splitter.push('half');
    splitter.stop();
    splitter.push(' more\nnext\n');
    splitter.end();
    expect(lines).toEqual([]);
  });
});

describe('JsonLineDecoder', () => {
  it('parses values, reports bad lines trimmed, and never throws', () => {
    const values: unknown[] = [];
    const bad: string[] = [];
    const decoder = new JsonLineDecoder(
      (value) => values.push(value),
      (line) => bad.push(line),
    );
    decoder.push(Buffer.from('{"a":"é"}\r\n  not json  \n[1,2]\n"s"\n'));
    expect(values).toEqual([{ a: 'é' }, [1, 2], 's']);
    expect(bad).toEqual(['not json']);
  });

  it('round-trips what encodeJsonLine writes, whatever the chunking', () => {
    const sent = [{ text: 'line\nbreak and 🙂' }, null, 42, { nested: { x: ['\r\n'] } }];
    const wire = Buffer.from(sent.map(encodeJsonLine).join(''));
    for (const size of [1, 2, 3, 7, wire.length]) {
      const values: unknown[] = [];
      const decoder = new JsonLineDecoder((value) => values.push(value));
      for (let at = 0; at < wire.length; at += size) decoder.push(wire.subarray(at, at + size));
      expect(values).toEqual(sent);
    }
    expect(encodeJsonLine({ a: 1 })).toBe('{"a":1}\n');
  });

  it('applies its limit and reports the overflow', () => {
    const values: unknown[] = [];
    let overflows = 0;
    const decoder = new JsonLineDecoder((value) => values.push(value), undefined, {
      maxLineLength: 16,
      onOverflow: () => overflows++,
    });
    decoder.push('{"ok":1}\n');
    decoder.push(`${JSON.stringify({ long: 'x'.repeat(32) })}\n{"late":1}\n`);
    expect(values).toEqual([{ ok: 1 }]);
    expect(overflows).toBe(1);
  });

  it('scans a 50 MB stream without newlines in linear time', { timeout: 60_000 }, () => {
    const values: unknown[] = [];
    const decoder = new JsonLineDecoder((value) => values.push(value));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    // a quadratic rescan of the pending bytes would not finish within the test's timeout
    for (let k = 0; k < 800; k++) decoder.push(chunk);
    decoder.push('{"next":1}\n');
    expect(values).toEqual([{ next: 1 }]);
  });
});
