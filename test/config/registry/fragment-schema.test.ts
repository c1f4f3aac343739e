/**
 * The fragment JSON Schema: a valid draft 2020-12 schema (checked with Ajv) that accepts every
 * valid fixture and both spec examples, rejects the structural mistakes of the invalid fixtures,
 * and describes every field for editor completion.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { FIELDS } from '../../../src/config/registry/field-catalogue.js';
import { fragmentJsonSchema } from '../../../src/config/registry/fragment-schema.js';

const root = resolve(import.meta.dirname, '../../fixtures/registry');
const schema = fragmentJsonSchema();
const ajv = new Ajv2020({
  strict: true,
  strictTypes: false,
  validateFormats: false,
  allErrors: true,
});
const validate = ajv.compile(schema);

const load = (file: string): unknown => parse(readFileSync(file, 'utf8'));

describe('fragmentJsonSchema', () => {
  it('is a draft 2020-12 schema that round-trips through JSON', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(ajv.validateSchema(schema)).toBe(true);
  });

  it('describes every field and enumerates the approval modes', () => {
    const server = (
      schema.$defs as { server: { properties: Record<string, Record<string, unknown>> } }
    ).server;
    for (const field of FIELDS) {
      const property = server.properties[field.name];
      expect(property, field.name).toBeDefined();
      expect(typeof property?.description).toBe('string');
    }
    expect(server.properties.default_tools_approval_mode?.enum).toEqual([
      'auto',
      'prompt',
      'writes',
      'approve',
    ]);
  });

  for (const name of readdirSync(join(root, 'valid')).filter((n) => n.endsWith('.toml'))) {
    it(`accepts valid/${name}`, () => {
      const ok = validate(load(join(root, 'valid', name)));
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    });
  }

  it.each([
    'approval-modes',
    'command-rules',
    'cwd-rules',
    'enabled-tools-rules',
    'env-var-names',
    'grant-owned-fields',
    'header-rules',
    'invalid-transport',
    'invalid-types',
    'missing-fields',
    'oauth-fields',
    'plaintext-bearer-token',
    'schema-version-missing',
    'server-ids',
    'timeouts',
    'tool-overrides',
    'unknown-fields',
    'unknown-top-level-keys',
    'unsupported-fields',
    'url-rules',
    'wrong-transport-fields',
  ])('rejects every fragment of invalid/%s', (name) => {
    const dir = join(root, 'invalid', name);
    for (const file of readdirSync(dir).filter((n) => n.endsWith('.toml'))) {
      expect(validate(load(join(dir, file))), file).toBe(false);
    }
  });

  it('rejects each transport-specific mistake on its own', () => {
    const base = { enabled_tools: ['a'], default_tools_approval_mode: 'auto' };
    const check = (server: Record<string, unknown>): boolean =>
      validate({ schema_version: 8, tool_mcp_servers: { x: { ...base, ...server } } });
    expect(check({ transport: 'stdio', command: 'srv' })).toBe(true);
    expect(check({ transport: 'streamable_http', url: 'https://x.invalid/' })).toBe(true);
    expect(check({ transport: 'stdio' })).toBe(false);
    expect(check({ transport: 'streamable_http' })).toBe(false);
    expect(check({ transport: 'stdio', command: 'srv', url: 'https://x.invalid/' })).toBe(false);
    expect(check({ transport: 'streamable_http', url: 'https://x.invalid/', env: {} })).toBe(false);
    expect(check({ transport: 'stdio', command: 'bin/srv' })).toBe(false);
    expect(check({ transport: 'stdio', command: 'srv', enabled_tools: [] })).toBe(false);
    expect(
      validate({
        schema_version: 8,
        tool_mcp_servers: { mmo_mesh: { ...base, transport: 'stdio', command: 'x' } },
      }),
    ).toBe(false);
  });
});
