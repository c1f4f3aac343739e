/**
 * One member of a JSON object's text set without re-serialising the rest (pure): an existing
 * member's value is replaced in place (every one of that name), a missing one is added first,
 * nested objects, arrays, strings with escapes and numbers beyond double precision keep their
 * exact text, and text that is not a JSON object gives undefined.
 */
import { describe, expect, it } from 'vitest';

import { setJsonMember } from '../../../src/foundation/text/json-member.js';

describe('setJsonMember', () => {
  it('replaces in place and keeps every other byte', () => {
    const raw =
      '{ "a": 12345678901234567890 , "k": "old \\" }", "n": {"k": [1, {"k": 2}], "s": "}"}, "z": true }';
    expect(setJsonMember(raw, 'k', 'new')).toBe(
      '{ "a": 12345678901234567890 , "k": "new", "n": {"k": [1, {"k": 2}], "s": "}"}, "z": true }',
    );
    expect(setJsonMember('{"k":1,"k":[2]}', 'k', 'v')).toBe('{"k":"v","k":"v"}');
    expect(setJsonMember('{"k": null}', 'k', 3)).toBe('{"k": 3}');
  });

  it('adds a missing member first', () => {
    expect(setJsonMember('{"a":1}', 'k', 'v')).toBe('{"k":"v","a":1}');
    expect(setJsonMember(' { } ', 'k', 'v')).toBe(' {"k":"v" } ');
    const added = setJsonMember('{"a":98765432109876543210}', 'k', 'v');
    expect(added).toBe('{"k":"v","a":98765432109876543210}');
  });

  it('refuses what is not a JSON object', () => {
    for (const raw of ['[1]', 'null', '"s"', '{', 'nope']) {
      expect(setJsonMember(raw, 'k', 'v')).toBeUndefined();
    }
  });
});
