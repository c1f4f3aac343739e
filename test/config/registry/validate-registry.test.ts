import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import { loadRegistry } from '../../../src/config/registry/load-registry.js';
import {
  diagnosticsAffecting,
  unknownServerDiagnostic,
  validateRegistry,
} from '../../../src/config/registry/validate-registry.js';
import { tmpDir } from '../../support/tmp.js';
import {
  CONFIG_FIXTURES as fixtures,
  configWith,
  fragment,
} from '../../support/registry-helpers.js';

function credentials(file: Record<string, string> = {}, env: Record<string, string> = {}) {
  return { source: credentialSourceFrom(file, env, '/cfg/credentials.env', true), diagnostics: [] };
}

describe('validateRegistry', () => {
  it('combines registry diagnostics, credential diagnostics and readiness per server', async () => {
    const registry = await loadRegistry(join(fixtures, 'basic'));
    const env = { PATH: process.env.PATH ?? '' };
    const warning = {
      severity: 'warning' as const,
      code: 'credentials-file-permissions',
      message: 'm',
      file: '/cfg/credentials.env',
    };
    const creds = {
      source: credentialSourceFrom({ ECHO_TOKEN: 'a', WEB_ORG: 'b' }, env, '/cfg/c', true),
      diagnostics: [warning],
    };
    const result = await validateRegistry(registry, creds, { env, home: '/h' });
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContainEqual(warning);
    expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual([
      'missing-env-var',
      'missing-env-var',
    ]);
    expect(result.servers.map((s) => [s.id, s.ok])).toEqual([
      ['local-echo', false],
      ['web', false],
    ]);
    expect(result.readiness.map((r) => r.server)).toEqual(['local-echo', 'web']);

    const ready = await validateRegistry(
      registry,
      credentials({ ECHO_TOKEN: 'a', ECHO_REGION: 'b', WEB_TOKEN: 'c', WEB_ORG: 'd' }),
      { env, home: '/h' },
    );
    expect(ready.ok).toBe(true);
    expect(ready.servers.every((s) => s.ok)).toBe(true);
  });

  it('limits one-server validation to that server and fragment problems that may affect it', async () => {
    const dir = await configWith({
      '05-early.toml': Buffer.from([0xff, 0xfe, 0x0a]),
      '10-a.toml': fragment('a', 'bogus_field = 1\n'),
      '20-b.toml': fragment('b'),
      '30-late.toml': Buffer.from([0xff, 0xfe, 0x0a]),
    });
    const registry = await loadRegistry(dir);
    const files = (id: string) =>
      diagnosticsAffecting(registry, id).map((x) => `${x.code}@${(x.file ?? '').split('/').pop()}`);
    // 05-early loads before b's fragment and cannot replace it; 30-late loads after and could
    expect(files('b')).toEqual(['invalid-utf8@30-late.toml']);
    expect(files('a')).toEqual(['unknown-field@10-a.toml', 'invalid-utf8@30-late.toml']);

    const env = { PATH: process.env.PATH ?? '' };
    const onlyB = await validateRegistry(registry, credentials(), { env, home: '/h' }, 'b');
    expect(onlyB.servers.map((s) => s.id)).toEqual(['b']);
    expect(onlyB.readiness.map((r) => r.server)).toEqual(['b']);
    expect(onlyB.ok).toBe(false);
  });

  it('suggests a near ID for an unknown one, or explains an empty registry', async () => {
    const registry = await loadRegistry(join(fixtures, 'basic'));
    expect(unknownServerDiagnostic(registry, 'web2').message).toContain("did you mean 'web'?");
    expect(unknownServerDiagnostic(registry, 'zzzzzz').message).toContain('tool-mcp list');
    const empty = await loadRegistry(await tmpDir());
    expect(unknownServerDiagnostic(empty, 'x').message).toContain('the registry is empty');
    const result = await validateRegistry(registry, credentials(), { env: {}, home: '/h' }, 'webb');
    expect(result.ok).toBe(false);
    expect(result.servers).toEqual([]);
    expect(result.diagnostics.map((x) => x.code)).toEqual(['unknown-server']);
  });
});
