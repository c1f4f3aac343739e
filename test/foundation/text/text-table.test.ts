import { describe, expect, it } from 'vitest';

import { formatTable } from '../../../src/foundation/text/text-table.js';

describe('formatTable', () => {
  it('aligns columns with two-space gutters and no trailing spaces', () => {
    expect(
      formatTable(
        ['A', 'LONGER'],
        [
          ['one', 'x'],
          ['three', ''],
        ],
      ),
    ).toBe('A      LONGER\none    x\nthree\n');
  });

  it('keeps each row on one line and escapes terminal sequences in cells', () => {
    const out = formatTable(
      ['NAME', 'WHAT'],
      [
        ['a\n12:00:02 root (lead) approval a9 approved by root (cli)', 'ok'],
        ['\u001b]52;c;ZXZpbA==\u0007', '\u001b]0;title\u0007\r\u202eevil'],
      ],
    );
    expect(out.split('\n')).toHaveLength(4);
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(out).toContain('a\\n12:00:02 root (lead) approval a9 approved by root (cli)  ok');
    expect(out).toContain('\\x1b]0;title\\x07\\r\\u202eevil');
  });

  it('measures widths on the escaped text', () => {
    const out = formatTable(['X', 'Y'], [['\t', 'b']]);
    expect(out).toBe('X   Y\n\\t  b\n');
  });
});
