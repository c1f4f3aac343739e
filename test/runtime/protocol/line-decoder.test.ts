/**
 * The mesh line decoder: lines split across chunks (and multi-byte characters split across
 * buffers) decode once; a line over the limit stops the decoder and reports the overflow; a long
 * stream without newlines is scanned in linear time.
 */
import { describe, expect, it } from 'vitest';

import { LineDecoder } from '../../../src/runtime/protocol/mesh-protocol.js';

describe('LineDecoder', () => {
  it('joins lines split across chunks and characters split across buffers', () => {
    const values: unknown[] = [];
    const decoder = new LineDecoder((v) => values.push(v));
    const bytes = Buffer.from('{"a":"é"}\n{"b":\n2}\n');
    for (const byte of bytes) decoder.push(Buffer.from([byte]));
    expect(values).toEqual([{ a: 'é' }]);
    decoder.push('{"c":3}\n');
    expect(values).toEqual([{ a: 'é' }, { c: 3 }]);
  });

  it('stops at a line over the limit and reports the overflow once', () => {
    const values: unknown[] = [];
    let overflows = 0;
    const decoder = new LineDecoder((v) => values.push(v), undefined, {
      maxLineLength: 100,
      onOverflow: () => overflows++,
    });
    decoder.push('{"ok":1}\n');
    decoder.push('x'.repeat(60));
    decoder.push('x'.repeat(60));
    decoder.push('\n{"late":1}\n');
    expect(values).toEqual([{ ok: 1 }]);
    expect(overflows).toBe(1);
  });

  it(
    'scans a 50 MB stream without newlines, then decodes the next line',
    { timeout: 60_000 },
    () => {
      const values: unknown[] = [];
      const decoder = new LineDecoder((v) => values.push(v), undefined, {
        maxLineLength: 64 * 1024 * 1024,
      });
      const chunk = Buffer.alloc(64 * 1024, 0x78);
      // a quadratic rescan of the pending bytes would not finish within the test's timeout
      for (let k = 0; k < 800; k++) decoder.push(chunk);
      expect(values).toEqual([]);
      decoder.push('\n{"next":1}\n');
      expect(values).toEqual([{ next: 1 }]);
    },
  );
});
