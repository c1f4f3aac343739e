/**
 * Finding credential values in what a client sends: literal, base64 at every byte alignment, in
 * both alphabets, wrapped or spaced, hex in either case with any separators and prefixes,
 * URL-encoded once or more; numbers by their decimal text, object keys, arrays joined as text or
 * bytes, character codes (nested too), one key's values across objects, a key with its value,
 * values split over several strings, zero-width characters and soft hyphens removed first;
 * nothing found in unrelated text or numbers; short values only as
 * whole tokens. Properties check every encoding of random values at random places.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  credentialMatcher,
  findCredentialIn,
} from '../../../src/foundation/diagnostics/credential-scan.js';
import { numberTexts } from '../../../src/foundation/diagnostics/credential-text.js';

const SECRET = 'sk-live-4f9a2c7e1b';
const DIGITS = '80417362519';
const matcher = credentialMatcher([SECRET, DIGITS, 'abc']);

const hex = (text: string): string => Buffer.from(text).toString('hex');
const pairs = (text: string, sep: string): string => hex(text).replace(/..(?!$)/g, `$&${sep}`);
/** Base64 wrapped at `width` columns with CRLF, as MIME writes it. */
const mime = (text: string, width = 76): string =>
  (
    Buffer.from(text)
      .toString('base64')
      .match(new RegExp(`.{1,${String(width)}}`, 'g')) ?? []
  ).join('\r\n');

describe('credential scan', () => {
  it('finds a value in each encoding, wherever it sits in the params', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'abcd']) {
      const raw = `${prefix}${SECRET}!tail`;
      expect(findCredentialIn({ q: Buffer.from(raw).toString('base64') }, matcher), prefix).toBe(
        'base64',
      );
      expect(findCredentialIn({ q: Buffer.from(raw).toString('base64url') }, matcher)).toBe(
        'base64',
      );
    }
    expect(findCredentialIn({ nested: [{ x: `say ${SECRET}` }] }, matcher)).toBe('literal');
    expect(findCredentialIn({ [SECRET]: 1 }, matcher)).toBe('literal');
    expect(findCredentialIn({ q: hex(SECRET) }, matcher)).toBe('hex');
    expect(findCredentialIn({ q: `0x${hex(SECRET).toUpperCase()}` }, matcher)).toBe('hex');
    const percent = hex(SECRET).replace(/../g, '%$&');
    expect(findCredentialIn({ url: `https://x.test/?k=${percent}` }, matcher)).toBe('url-encoded');
  });

  it('finds numbers by their decimal text, and values in keys, arrays and split strings', () => {
    expect(findCredentialIn({ n: Number(DIGITS) }, matcher)).toBe('literal');
    expect(findCredentialIn({ n: [1, Number(DIGITS)] }, matcher)).toBe('literal');
    expect(findCredentialIn({ n: 8041.7362519 }, matcher)).toBe('literal');
    expect(findCredentialIn({ n: Number(`${DIGITS}0000000000000`) }, matcher)).toBe('literal');
    expect(numberTexts(1e21)).toEqual(['1e+21', '1000000000000000000000']);
    expect(findCredentialIn({ deep: { [`k-${DIGITS}`]: true } }, matcher)).toBe('literal');
    expect(findCredentialIn({ parts: ['sk-live-', '4f9a2c7e1b'] }, matcher)).toBe('literal');
    expect(findCredentialIn({ a: 'sk-live-', b: '4f9a2c7e1b' }, matcher)).toBe('literal');
    expect(findCredentialIn({ chars: SECRET.split('') }, matcher)).toBe('literal');
    expect(findCredentialIn({ bytes: [...Buffer.from(SECRET)] }, matcher)).toBe('literal');
    expect(findCredentialIn({ uri: `https://x.test/?k=${SECRET}` }, matcher)).toBe('literal');
  });

  it('finds values as character codes, across content items, keys and zero-width characters', () => {
    const codes = (t: string): number[] => Array.from(t).map((c) => c.codePointAt(0) ?? 0);
    expect(findCredentialIn({ codes: codes(`x ${SECRET}`) }, matcher)).toBe('literal');
    expect(findCredentialIn({ d: [codes('sk-live'), [codes('-4f9a2c7e1b')]] }, matcher)).toBe(
      'literal',
    );
    expect(findCredentialIn({ codes: codes(hex(SECRET)) }, matcher)).toBe('hex');
    const items = [
      { type: 'text', text: 'sk-live-' },
      { type: 'text', text: '4f9a2c7e1b' },
    ];
    expect(findCredentialIn({ content: items }, matcher)).toBe('literal');
    expect(findCredentialIn({ 'sk-live-': '4f9a2c7e1b' }, matcher)).toBe('literal');
    for (const mark of ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad']) {
      expect(findCredentialIn({ q: Array.from(SECRET).join(mark) }, matcher), mark).toBe('literal');
      expect(findCredentialIn({ q: Array.from('abc').join(mark) }, matcher), mark).toBe('literal');
      const b64 = Buffer.from(SECRET).toString('base64');
      expect(findCredentialIn({ q: `${b64.slice(0, 5)}${mark}${b64.slice(5)}` }, matcher)).toBe(
        'base64',
      );
    }
    // numbers that spell nothing, and a huge text holding nothing
    expect(
      findCredentialIn(
        { codes: codes('hello world'), n: [1, 2, 3], big: 'x '.repeat(1e5) },
        matcher,
      ),
    ).toBeUndefined();
  });

  it('finds a value split across two long parts, each clipped to its ends', () => {
    const head = `${'lorem '.repeat(50_000)}sk-live-`;
    const tail = `4f9a2c7e1b${' ipsum'.repeat(50_000)}`;
    expect(findCredentialIn({ content: [{ text: head }, { text: tail }] }, matcher)).toBe(
      'literal',
    );
    expect(findCredentialIn({ a: head, b: tail }, matcher)).toBe('literal');
  });

  it('finds hex with separators and prefixes, in either case', () => {
    for (const sep of [':', '-', ' ', '.', '_', ', ', '\n']) {
      expect(findCredentialIn({ q: pairs(SECRET, sep) }, matcher), JSON.stringify(sep)).toBe('hex');
      expect(findCredentialIn({ q: pairs(SECRET, sep).toUpperCase() }, matcher)).toBe('hex');
    }
    const prefixed = [...Buffer.from(SECRET)].map((b) => `0x${b.toString(16)}`).join(' ');
    expect(findCredentialIn({ q: prefixed }, matcher)).toBe('hex');
    const escaped = [...Buffer.from(SECRET)].map((b) => `\\x${b.toString(16)}`).join('');
    expect(findCredentialIn({ q: escaped }, matcher)).toBe('hex');
  });

  it('finds wrapped and spaced base64, and values encoded more than once for URLs', () => {
    const long = `${'lorem ipsum '.repeat(20)}${SECRET}${' dolor'.repeat(20)}`;
    expect(findCredentialIn({ q: mime(long) }, matcher)).toBe('base64');
    expect(findCredentialIn({ q: mime(long, 64).replace(/\r\n/g, '\n') }, matcher)).toBe('base64');
    expect(findCredentialIn({ q: mime(long, 4).replace(/\r\n/g, ' ') }, matcher)).toBe('base64');
    const twice = encodeURIComponent(encodeURIComponent(`k=${SECRET}`)).replace(/-/g, '%252D');
    expect(findCredentialIn({ q: twice }, matcher)).toBe('url-encoded');
    expect(findCredentialIn({ q: encodeURIComponent(hex(SECRET)) }, matcher)).toBeDefined();
  });

  it('finds long values with separators inserted or case changed', () => {
    expect(findCredentialIn({ q: 'SK-LIVE-4F9A2C7E1B' }, matcher)).toBe('literal');
    expect(findCredentialIn({ q: 'sk live 4f9a 2c7e 1b' }, matcher)).toBe('literal');
    expect(findCredentialIn({ q: 'sk_live_4f9a2c7e\n1b' }, matcher)).toBe('literal');
    expect(findCredentialIn({ q: '804-173-625-19' }, matcher)).toBe('literal');
  });

  it('finds nothing in unrelated params and matches short values only as whole tokens', () => {
    expect(
      findCredentialIn(
        { q: 'hello world', n: 3, list: ['sk-live'], big: 80417362518, f: 0.5 },
        matcher,
      ),
    ).toBeUndefined();
    expect(findCredentialIn({ q: 'abcdef' }, matcher)).toBeUndefined();
    expect(findCredentialIn({ q: 'x abc y' }, matcher)).toBe('literal');
    expect(findCredentialIn({ q: '%zz broken % encoding +' }, matcher)).toBeUndefined();
    // a short value is not found with separators inserted (prose would match by chance)
    expect(findCredentialIn({ q: 'a b c' }, matcher)).toBeUndefined();
  });

  it('finds a random value in every encoding at a random place (property)', () => {
    const value = fc.stringMatching(/^[A-Za-z0-9_\-+/=]{8,32}$/);
    const filler = fc.stringMatching(/^[a-z .,]{0,40}$/);
    const encode = fc.constantFrom(
      (v: string) => v,
      (v: string) => Buffer.from(v).toString('base64'),
      (v: string) => Buffer.from(`x${v}`).toString('base64url'),
      (v: string) => mime(`${'y'.repeat(100)}${v}`, 20),
      (v: string) => pairs(v, ':').toUpperCase(),
      (v: string) => pairs(v, ' '),
      (v: string) => hex(v),
      (v: string) => encodeURIComponent(v).replace(/[A-Za-z0-9]/g, (c) => `%${hex(c)}`),
      (v: string) => encodeURIComponent(encodeURIComponent(v)),
    );
    fc.assert(
      fc.property(value, filler, filler, encode, (v, before, after, enc) => {
        const m = credentialMatcher([v]);
        return (
          findCredentialIn({ arguments: { text: `${before}${enc(v)}${after}` } }, m) !== undefined
        );
      }),
      { numRuns: 300 },
    );
  });

  it('finds a random digits value sent as a number (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10_000, max: Number.MAX_SAFE_INTEGER }), (n) => {
        const m = credentialMatcher([String(n)]);
        return (
          findCredentialIn({ n }, m) === 'literal' &&
          findCredentialIn({ n: n + 1 }, m) === undefined
        );
      }),
      { numRuns: 200 },
    );
  });
});
