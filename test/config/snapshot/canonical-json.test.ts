/**
 * Canonical JSON: sorted keys, no whitespace, key-order independence, and refusal of non-JSON data.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { canonicalJson } from '../../../src/config/snapshot/canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    );
  });

  it('sorts by UTF-16 code units, not locale', () => {
    expect(canonicalJson({ é: 1, z: 2, Z: 3, _: 4 })).toBe('{"Z":3,"_":4,"z":2,"é":1}');
  });

  it('escapes strings like JSON and keeps non-ASCII text as is', () => {
    expect(canonicalJson({ t: 'line\n"q" ü' })).toBe('{"t":"line\\n\\"q\\" ü"}');
  });

  it('gives the same text for the same data in any key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const shuffled = JSON.parse(
          JSON.stringify(value),
          function (this: unknown, _k, v: unknown) {
            if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
            return Object.fromEntries(Object.entries(v).reverse());
          },
        ) as unknown;
        expect(canonicalJson(shuffled)).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('refuses values JSON cannot represent', () => {
    expect(() => canonicalJson({ a: undefined })).toThrow(/undefined is not JSON/);
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/not JSON/);
    expect(() => canonicalJson({ a: new Date(0) })).toThrow(/plain objects/);
    expect(() => canonicalJson({ a: () => 1 })).toThrow(/function/);
    expect(() => canonicalJson(new Map())).toThrow(/plain objects/);
  });
});
