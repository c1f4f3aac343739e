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
});
