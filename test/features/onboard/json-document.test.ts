/**
 * The JSON reader of import: values, positions of keys and items, and syntax errors that point at
 * their line without quoting the document (which may hold a secret).
 */
import { describe, expect, it } from 'vitest';

import { parseJsonDocument } from '../../../src/features/onboard/json-document.js';

describe('parseJsonDocument', () => {
  it('records the line and column of keys and array items', () => {
    const parsed = parseJsonDocument(
      '{\n  "a": {\n    "b": [1,\n      "x"]\n  },\n  "c\\"d": true\n}',
      '/f.json',
    );
    if (!parsed.ok) throw new Error('not parsed');
    expect(parsed.positions.lookup(['a'])).toEqual({ line: 2, column: 3 });
    expect(parsed.positions.lookup(['a', 'b'])).toEqual({ line: 3, column: 5 });
    expect(parsed.positions.lookup(['a', 'b', 1])).toEqual({ line: 4, column: 7 });
    expect(parsed.positions.lookup(['c"d'])).toEqual({ line: 6, column: 3 });
  });

  it('reports a syntax error by position, without the text around it', () => {
    const parsed = parseJsonDocument('{"a": 1,\n "b": 2', '/f.json');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.diagnostics[0]).toMatchObject({
      code: 'import-syntax',
      file: '/f.json',
      line: 2,
    });
    const quoted = parseJsonDocument('{"token": ghp_canaryCanaryCanary0123456789}', '/f.json');
    expect(JSON.stringify(quoted)).not.toContain('canary');
  });
});
