/**
 * Resolving `--max-participants`: absent, a session runs at most 8 participants; a whole number
 * (0 included) is taken as given; anything else is a message naming the option and the value.
 */
import { describe, expect, it } from 'vitest';

import {
  DEFAULT_MAX_PARTICIPANTS,
  resolveMaxParticipants,
} from '../../../src/runtime/mesh/participant-cap.js';

describe('resolveMaxParticipants', () => {
  it('gives 8 when the option is absent', () => {
    expect(resolveMaxParticipants(undefined)).toEqual({ ok: true, value: 8 });
    expect(DEFAULT_MAX_PARTICIPANTS).toBe(8);
  });

  it('takes a whole number as given, 0 (no participants) included', () => {
    expect(resolveMaxParticipants('2')).toEqual({ ok: true, value: 2 });
    expect(resolveMaxParticipants('0')).toEqual({ ok: true, value: 0 });
    expect(resolveMaxParticipants('12')).toEqual({ ok: true, value: 12 });
  });

  it('refuses anything else, naming the option and the value', () => {
    for (const value of ['', 'abc', '-1', '1.5', '2e3', ' 3', '99999999999999999999']) {
      const resolved = resolveMaxParticipants(value);
      expect(resolved.ok, value).toBe(false);
      if (!resolved.ok) {
        expect(resolved.message).toContain('--max-participants');
        expect(resolved.message).toContain(`'${value}'`);
      }
    }
  });
});
