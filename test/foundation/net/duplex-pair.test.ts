/**
 * The in-memory pair of streams: each end reads what the other writes, in order; ending one's
 * writing closes both (no half-open end keeps a broker connection alive); destroying either
 * closes both.
 */
import { describe, expect, it } from 'vitest';

import { duplexPair } from '../../../src/foundation/net/duplex-pair.js';

function collect(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.once('end', () => {
      resolve(text);
    });
  });
}

describe('duplexPair', () => {
  it('carries what each end writes to the other, and ends it', async () => {
    const [a, b] = duplexPair();
    const toB = collect(b);
    const toA = collect(a);
    a.write('one ');
    b.write('back');
    a.end('two');
    b.end();
    expect(await toB).toBe('one two');
    expect(await toA).toBe('back');
  });

  it('closes both ends when one ends its writing', async () => {
    const [a, b] = duplexPair();
    b.resume();
    a.resume();
    const closed = Promise.all([
      new Promise((resolve) => a.once('close', resolve)),
      new Promise((resolve) => b.once('close', resolve)),
    ]);
    a.end();
    await closed;
    expect([a.destroyed, b.destroyed]).toEqual([true, true]);
  });

  it('closes both ends when either is destroyed', async () => {
    const [a, b] = duplexPair();
    const closed = new Promise((resolve) => b.once('close', resolve));
    a.destroy();
    await closed;
    expect(b.destroyed).toBe(true);
    expect(a.destroyed).toBe(true);
  });
});
