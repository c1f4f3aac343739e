/**
 * Codex's own last words for a failure's message (pure): its last error line, else its last
 * line, cut to 400 characters; nothing when it said nothing.
 */
import { describe, expect, it } from 'vitest';

import { codexSaid } from '../../../src/features/session/launch-ending.js';

describe('codexSaid', () => {
  it("takes Codex's last error line, else its last line", () => {
    const tail =
      'warning: no bubblewrap on PATH\nError: cannot open the state database\n  \nwarning: later\n';
    expect(codexSaid(tail)).toBe('; Codex said: Error: cannot open the state database');
    expect(codexSaid('starting\nsomething went wrong\n')).toBe(
      '; Codex said: something went wrong',
    );
    expect(codexSaid(' \n\n')).toBe('');
    const long = codexSaid(`Error: ${'x'.repeat(1000)}`);
    expect(long.endsWith('…')).toBe(true);
    expect(long.length).toBe('; Codex said: '.length + 401);
  });
});
