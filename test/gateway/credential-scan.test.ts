/**
 * Finding credential values in tool-call arguments: literal, base64 at every byte alignment and in
 * both alphabets, hex in either case, URL-encoded; nothing found in unrelated text; short values
 * only as whole tokens.
 */
import { describe, expect, it } from 'vitest';

import { credentialMatcher, findCredentialIn } from '../../src/gateway/credential-scan.js';

const SECRET = 'sk-live-4f9a2c7e1b';
const matcher = credentialMatcher([SECRET, 'abc']);

describe('credential scan', () => {
  it('finds a value in each encoding, wherever it sits in the arguments', () => {
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
    expect(findCredentialIn({ q: Buffer.from(SECRET).toString('hex') }, matcher)).toBe('hex');
    expect(
      findCredentialIn({ q: `0x${Buffer.from(SECRET).toString('hex').toUpperCase()}` }, matcher),
    ).toBe('hex');
    const percent = Buffer.from(SECRET).toString('hex').replace(/../g, '%$&');
    expect(findCredentialIn({ url: `https://x.test/?k=${percent}` }, matcher)).toBe('url-encoded');
  });

  it('finds nothing in unrelated arguments and matches short values only as whole tokens', () => {
    expect(
      findCredentialIn({ q: 'hello world', n: 3, list: ['sk-live'] }, matcher),
    ).toBeUndefined();
    expect(findCredentialIn({ q: 'abcdef' }, matcher)).toBeUndefined();
    expect(findCredentialIn({ q: 'x abc y' }, matcher)).toBe('literal');
    expect(findCredentialIn({ q: '%zz broken % encoding +' }, matcher)).toBeUndefined();
  });
});
