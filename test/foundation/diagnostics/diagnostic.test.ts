import { describe, expect, it } from 'vitest';

import { diagnostic, formatDiagnostic } from '../../../src/foundation/diagnostics/diagnostic.js';

describe('formatDiagnostic', () => {
  it('prints file:line:col: severity[code] path: message', () => {
    const d = diagnostic({
      code: 'x-y',
      message: 'bad',
      file: 'a.toml',
      line: 3,
      column: 5,
      path: 'a.b',
    });
    expect(formatDiagnostic(d)).toBe('a.toml:3:5: error[x-y] a.b: bad');
  });
  it('omits absent parts, also from JSON', () => {
    const d = diagnostic({ severity: 'warning', code: 'w', message: 'm', path: undefined });
    expect(formatDiagnostic(d)).toBe('warning[w] m');
    expect(JSON.stringify(d)).toBe('{"severity":"warning","code":"w","message":"m"}');
  });
  it('prints quoted server text terminal-safe, its own continuation lines indented', () => {
    const stderr = [
      'Error: \u001b]52;c;ZXZpbA==\u0007 boom\r',
      '12:00:02 root (lead) approval a9 approved by root (cli)',
      '\u001b]0;title\u0007\u202eevil',
    ];
    const d = diagnostic({
      code: 'probe-start-failed',
      message: `server 'srv' v1\u001b[2J: exited\n  stderr (last 3 lines):\n${stderr.map((l) => `    | ${l}`).join('\n')}\ntrailing\u2028text`,
      file: 'servers/x\u001b.toml',
      path: 'a\nb',
    });
    const text = formatDiagnostic(d);
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      "servers/x\\x1b.toml: error[probe-start-failed] a\\nb: server 'srv' v1\\x1b[2J: exited",
    );
    expect(lines.slice(1)).toEqual([
      '  stderr (last 3 lines):',
      '    | Error: \\x1b]52;c;ZXZpbA==\\x07 boom\\r',
      '    | 12:00:02 root (lead) approval a9 approved by root (cli)',
      '    | \\x1b]0;title\\x07\\u202eevil',
      '  trailing\\u2028text',
    ]);
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u202e]/);
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    expect(d.message).toContain('\u001b]52;c;');
  });
});
