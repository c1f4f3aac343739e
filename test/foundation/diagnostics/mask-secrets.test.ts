/**
 * Masking of credential values in child output: whole values longest first, short values as whole
 * tokens, and a stream that never passes on a value split across chunks — whether the pieces are
 * cut by newlines or by the flush timer.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

import {
  MASK,
  MaskingStream,
  maskSecrets,
  safeCut,
} from '../../../src/foundation/diagnostics/mask-secrets.js';
import { terminalSafe } from '../../../src/foundation/text/terminal-safe.js';

describe('maskSecrets', () => {
  it('replaces every credential value, longest first', () => {
    expect(maskSecrets('token=abcd1234 and abcd1234xyz', ['abcd1234', 'abcd1234xyz'])).toBe(
      `token=${MASK} and ${MASK}`,
    );
  });

  it('masks values shorter than 4 characters where they stand alone', () => {
    expect(maskSecrets('KEY=ab7 in ab7c, "ab7", x-ab7-y', ['ab7'])).toBe(
      `KEY=${MASK} in ab7c, "${MASK}", x-${MASK}-y`,
    );
    expect(maskSecrets('a1 b a1b', ['a1', 'b'])).toBe(`${MASK} ${MASK} a1b`);
    expect(maskSecrets('nothing', [''])).toBe('nothing');
  });
});

describe('safeCut', () => {
  it('never cuts through a value or before a possible start of one', () => {
    expect(safeCut('line s3cr', 9, ['s3cret'])).toBe(5);
    expect(safeCut('x s3cret y', 5, ['s3cret'])).toBe(2);
    expect(safeCut('x s3cret y', 10, ['s3cret'])).toBe(10);
    // an occurrence of one value that a cut inside another would split moves the cut further
    expect(safeCut('abcXYZ', 5, ['abcXYZ', 'Zq'])).toBe(0);
    expect(safeCut('plain text', 10, ['s3cret'])).toBe(10);
  });
});

describe('MaskingStream', () => {
  it('masks a value split across chunks, by lines and by the flush timer', () => {
    vi.useFakeTimers();
    try {
      const out: string[] = [];
      const stream = new MaskingStream(['s3cret-value'], (t) => out.push(t));
      stream.push('first line s3cr');
      stream.push('et-value here\nsecond ');
      expect(out).toEqual([`first line ${MASK} here\n`]);
      vi.advanceTimersByTime(500);
      expect(out).toEqual([`first line ${MASK} here\n`, 'second ']);
      // a partial line ending in what may start the value is held back past the timer
      stream.push('token=s3cret-');
      vi.advanceTimersByTime(500);
      expect(out.at(-1)).toBe('token=');
      stream.push('value done');
      stream.end();
      expect(out.join('')).toBe(`first line ${MASK} here\nsecond token=${MASK} done`);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never passes on a value, however the text is cut and whenever the timer fires', () => {
    const secretArb = fc.stringMatching(/^[a-z0-9]{4,12}$/);
    fc.assert(
      fc.property(
        fc.array(secretArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.oneof(fc.stringMatching(/^[a-z0-9 \n]{0,8}$/), fc.constant('\n')), {
          maxLength: 8,
        }),
        fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
        (secrets, fillers, cuts, flushes) => {
          vi.useFakeTimers();
          try {
            const text = fillers.map((f, k) => `${f}${secrets[k % secrets.length] ?? ''}`).join('');
            const out: string[] = [];
            const stream = new MaskingStream(secrets, (t) => out.push(t));
            let at = 0;
            for (const [k, size] of cuts.entries()) {
              stream.push(text.slice(at, at + size));
              at += size;
              if (flushes[k % flushes.length] === true) vi.advanceTimersByTime(1000);
            }
            stream.push(text.slice(at));
            stream.end();
            const joined = out.join('');
            for (const secret of secrets) expect(joined).not.toContain(secret);
            expect(joined).toBe(maskSecrets(text, secrets));
          } finally {
            vi.useRealTimers();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('encoded forms of a value', () => {
  const secret = 'pa"ss\\wo rd/é';
  it.each([
    ['JSON-escaped', JSON.stringify({ v: secret })],
    ['URL-encoded', `https://x.invalid/?q=${encodeURIComponent(secret)}`],
    ['form-encoded', `q=${encodeURIComponent(secret).replace(/%20/g, '+')}`],
    ['base64', `Basic ${Buffer.from(secret).toString('base64')}`],
    ['base64url', Buffer.from(secret).toString('base64url')],
  ])('masks the %s form', (_, text) => {
    const masked = maskSecrets(text, [secret]);
    expect(masked).toContain('***');
    expect(masked).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(masked).not.toContain(encodeURIComponent(secret));
    expect(masked).not.toContain(Buffer.from(secret).toString('base64').replace(/=+$/, ''));
  });

  it('masks the terminal-safe form of a value with control characters', () => {
    const multiline = '-----BEGIN KEY-----\nabc\u001bdef\r\n-----END KEY-----';
    const shown = `error: ${terminalSafe(`bad key ${multiline} given`)}`;
    expect(shown).toContain('abc\\x1bdef\\r\\n');
    const masked = maskSecrets(shown, [multiline]);
    expect(masked).toBe('error: bad key *** given');
  });

  it('masks every form in a stream split at any point', () => {
    const text = `a ${JSON.stringify(secret)} b ${encodeURIComponent(secret)} c`;
    for (let cut = 0; cut <= text.length; cut++) {
      let out = '';
      const stream = new MaskingStream([secret], (t) => (out += t));
      stream.push(text.slice(0, cut));
      stream.push(text.slice(cut));
      stream.end();
      expect(out, String(cut)).toBe('a "***" b *** c');
    }
  });

  it('masks what a list holds now, when the same list gains a value', () => {
    const secrets: string[] = ['first-secret'];
    expect(maskSecrets('first-secret second-secret', secrets)).toBe('*** second-secret');
    secrets.push('second-secret');
    expect(maskSecrets('first-secret second-secret', secrets)).toBe('*** ***');
    secrets[0] = 'other';
    expect(maskSecrets('first-secret other', secrets)).toBe('first-secret ***');
  });
});
