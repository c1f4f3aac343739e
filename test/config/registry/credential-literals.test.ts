/**
 * Known credential values inside configuration literals (pure): found as is and base64, hex or
 * URL-encoded, in values and keys; short values are not searched; a finding names the key and the
 * variable, never the value (`known-credential-literal`).
 */
import { describe, expect, it } from 'vitest';

import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import {
  credentialLiteralDiagnostics,
  findCredentialLiterals,
  knownCredentials,
} from '../../../src/config/registry/credential-literals.js';

const VALUE = 'tok-4f9a2c7e91b3d5a8';

describe('credential values in literals', () => {
  const source = credentialSourceFrom(
    { API_TOKEN: VALUE, SHORT: 'abc123', EMPTY: '' },
    { SERVICE_KEY: 'svc-key-77d1e0b6a2', UNRELATED: 'not-referenced-value' },
    '/c/credentials.env',
    true,
  );
  const known = knownCredentials(source, ['SERVICE_KEY']);

  it('knows the file values and referenced variables, at least 8 characters long', () => {
    expect(known.map((c) => c.name)).toEqual(['API_TOKEN', 'SERVICE_KEY']);
  });

  it('finds each encoding and names keys by their table', () => {
    const data = {
      plain: `--config=${VALUE}`,
      b64: Buffer.from(`x${VALUE}`).toString('base64'),
      hex: Buffer.from(VALUE).toString('hex').toUpperCase(),
      url: encodeURIComponent(`a b/${VALUE}`).replace(/-/g, '%2D'),
      list: ['fine', 'svc-key-77d1e0b6a2'],
      table: { [VALUE]: 'x' },
      short: 'abc123',
      unrelated: 'not-referenced-value',
    };
    const found = findCredentialLiterals(data, known, ['root']);
    expect(found.map((f) => [f.path.join('.'), f.encoding, f.credential, f.inKey])).toEqual([
      ['root.plain', 'literal', 'API_TOKEN', false],
      ['root.b64', 'base64', 'API_TOKEN', false],
      ['root.hex', 'hex', 'API_TOKEN', false],
      ['root.url', 'url-encoded', 'API_TOKEN', false],
      ['root.list.1', 'literal', 'SERVICE_KEY', false],
      [`root.table.${VALUE}`, 'literal', 'API_TOKEN', true],
    ]);
    const diagnostics = credentialLiteralDiagnostics(data, known, {
      file: '/c/codex-base.toml',
      base: [],
      fix: 'Remove it.',
    });
    expect(diagnostics.map((d) => d.code)).toEqual(Array(6).fill('known-credential-literal'));
    expect(diagnostics[5]?.path).toBe('table');
    for (const d of diagnostics) expect(JSON.stringify(d)).not.toContain(VALUE);
    expect(diagnostics[0]?.message).toContain('plain holds the value of API_TOKEN');
  });
});
