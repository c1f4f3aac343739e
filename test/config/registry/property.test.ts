/**
 * Property tests: random fragments (structured TOML built from known and unknown keys and values,
 * mutated spec examples, and raw bytes) never crash `buildRegistry`; every diagnostic carries a
 * file, line and column; valid definitions round-trip through TOML to the same definition.
 */
import fc from 'fast-check';
import { stringify } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { buildRegistry } from '../../../src/config/registry/build-registry.js';
import {
  isCredentialName,
  isCredentialValue,
} from '../../../src/config/registry/credential-patterns.js';
import { FIELDS, REJECTED_FIELDS } from '../../../src/config/registry/field-catalogue.js';
import {
  APPROVAL_MODES,
  type FragmentSource,
  type Registry,
} from '../../../src/config/registry/types.js';
import { SPEC_EXAMPLE } from '../../support/registry-helpers.js';

const encoder = new TextEncoder();

const KEYS = [
  ...FIELDS.map((f) => f.name),
  ...REJECTED_FIELDS.keys(),
  'approval_mode',
  'a',
  'b',
  'GITHUB_TOKEN',
  'Authorization',
  'X-Client',
];

const key = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 }));

const scalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constantFrom(
    'stdio',
    'streamable_http',
    'auto',
    'prompt',
    'writes',
    'approve',
    'https://mcp.example.invalid/',
    'http://mcp.example.invalid/?token=x',
    'http://127.0.0.1:1/',
    '/usr/bin/srv',
    '~/bin/srv',
    './srv',
    'srv',
    'A_VAR',
    'a',
    'b',
    'sk-abcdefghijklmnopqrstu',
    'Bearer abcdefghij',
  ),
);

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
}));

const server = fc.dictionary(key, value, { maxKeys: 9 });
const serverId = fc.oneof(
  fc.constantFrom('alpha', 'beta', 'mmo_mesh', 'Bad', '1x', 'gamma-2'),
  fc.string({ maxLength: 6 }),
);

const fragment = fc.record(
  {
    schema_version: fc.oneof(fc.constant(8), fc.constant(8), scalar),
    tool_mcp_servers: fc.oneof(
      fc.dictionary(serverId, fc.oneof(server, server, scalar), { maxKeys: 4 }),
      scalar,
    ),
    extra: value,
  },
  { requiredKeys: [] },
);

function toToml(doc: Record<string, unknown>): string | undefined {
  try {
    return stringify(doc);
  } catch {
    return undefined;
  }
}

function checkInvariants(registry: Registry, sources: readonly FragmentSource[]): void {
  const files = new Set(sources.map((s) => s.file));
  for (const d of registry.diagnostics) {
    expect(files.has(d.file ?? '')).toBe(true);
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.column).toBeGreaterThanOrEqual(1);
    expect(d.message.length).toBeGreaterThan(0);
  }
  const ok = registry.statuses.filter((s) => s.ok).map((s) => s.id);
  expect([...registry.servers.keys()]).toEqual(ok);
  for (const [id, entry] of registry.servers) {
    expect(entry.definition.id).toBe(id);
    expect(Object.values(entry.definition)).not.toContain(undefined);
  }
}

const files = fc.array(fc.constantFrom('10-a.toml', '9-b.toml', 'a.toml', 'B.toml', 'z.toml'), {
  minLength: 1,
  maxLength: 4,
});

const safeText = fc.stringMatching(/^[a-z0-9 ._=:-]{0,10}$/);
const envName = fc
  .stringMatching(/^[A-Z][A-Z0-9_]{0,7}$/)
  .filter((n) => !isCredentialName(n) && !isCredentialValue(n));
const headerName = fc.stringMatching(/^X-[A-Za-z]{1,6}$/).filter((n) => !isCredentialName(n));
const toolName = fc.stringMatching(/^[a-z_]{1,8}$/);
const mode = fc.constantFrom(...APPROVAL_MODES);
const validId = fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/).filter((id) => id !== 'mmo_mesh');

const common = fc.uniqueArray(toolName, { minLength: 1, maxLength: 4 }).chain((tools) =>
  fc.record(
    {
      enabled_tools: fc.constant(tools),
      default_tools_approval_mode: mode,
      startup_timeout_sec: fc.double({ min: 0.001, max: 1e6, noNaN: true }),
      tool_timeout_sec: fc.integer({ min: 1, max: 100_000 }),
      supports_parallel_tool_calls: fc.boolean(),
      tools: fc
        .subarray(tools, { minLength: 1 })
        .chain((some) =>
          fc.tuple(...some.map((t) => mode.map((m) => [t, { approval_mode: m }] as const))),
        )
        .map((entries) => Object.fromEntries(entries)),
    },
    { requiredKeys: ['enabled_tools', 'default_tools_approval_mode'] },
  ),
);

const stdioFields = fc.record(
  {
    transport: fc.constant('stdio'),
    command: fc.constantFrom('srv', 'ida-pro-mcp', '/usr/bin/srv', '~/bin/srv'),
    args: fc.array(safeText, { maxLength: 3 }),
    cwd: fc.constantFrom('/tmp', '~/work', '/srv/mcp'),
    env: fc.dictionary(envName, safeText, { maxKeys: 3 }),
    env_vars: fc.uniqueArray(envName, { maxLength: 3 }),
  },
  { requiredKeys: ['transport', 'command'] },
);

const httpFields = fc.record(
  {
    transport: fc.constant('streamable_http'),
    url: fc.constantFrom(
      'https://mcp.example.invalid/',
      'https://mcp.example.invalid:8443/v1?region=eu',
      'http://127.0.0.1:8931/mcp',
      'http://localhost/',
    ),
    bearer_token_env_var: envName,
    http_headers: fc.dictionary(headerName, safeText, { maxKeys: 3 }),
    env_http_headers: fc.dictionary(headerName, envName, { maxKeys: 3 }),
  },
  { requiredKeys: ['transport', 'url'] },
);

const validDefinition: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(fc.oneof(stdioFields, httpFields), common)
  .map(([transport, rest]) => ({ ...transport, ...rest }));

const validFragment = fc
  .dictionary(validId, validDefinition, { maxKeys: 3 })
  .map((table) => ({ schema_version: 8, tool_mcp_servers: table }));

describe('buildRegistry on random input', () => {
  it('never throws on structured random fragments, and positions every diagnostic', () => {
    fc.assert(
      fc.property(fc.array(fragment, { minLength: 1, maxLength: 4 }), files, (docs, names) => {
        const sources: FragmentSource[] = [];
        docs.forEach((doc, index) => {
          const text = toToml(doc);
          if (text === undefined) return;
          sources.push({
            file: `/cfg/${String(index)}-${names[index % names.length] ?? 'x.toml'}`,
            bytes: encoder.encode(text),
          });
        });
        const registry = buildRegistry(sources);
        checkInvariants(registry, sources);
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on mutated spec examples', () => {
    const spec = SPEC_EXAMPLE;
    const edit = fc.record({
      at: fc.nat({ max: spec.length }),
      remove: fc.nat({ max: 6 }),
      insert: fc.oneof(
        fc.string({ maxLength: 4 }),
        fc.constantFrom('"', '[', ']', '\n', '=', '.', '#', '{', '}', "'''", '"""', '\\'),
      ),
    });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        let text = spec;
        for (const e of edits) {
          const at = Math.min(e.at, text.length);
          text = text.slice(0, at) + e.insert + text.slice(at + e.remove);
        }
        const sources = [{ file: '/cfg/spec.toml', bytes: encoder.encode(text) }];
        checkInvariants(buildRegistry(sources), sources);
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on raw bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const sources = [{ file: '/cfg/raw.toml', bytes }];
        checkInvariants(buildRegistry(sources), sources);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips valid definitions through TOML unchanged', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fragment, validFragment), { minLength: 1, maxLength: 3 }),
        (docs) => {
          const sources = docs.flatMap((doc, index) => {
            const text = toToml(doc);
            return text === undefined
              ? []
              : [{ file: `/cfg/${String(index)}.toml`, bytes: encoder.encode(text) }];
          });
          const registry = buildRegistry(sources);
          for (const [id, entry] of registry.servers) {
            const fields: Record<string, unknown> = { ...entry.definition };
            delete fields.id;
            const again = buildRegistry([
              {
                file: '/cfg/again.toml',
                bytes: encoder.encode(
                  stringify({ schema_version: 8, tool_mcp_servers: { [id]: fields } }),
                ),
              },
            ]);
            expect(again.diagnostics).toEqual([]);
            expect(again.servers.get(id)?.definition).toEqual(entry.definition);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts every generated valid definition and normalises it to exactly its fields', () => {
    fc.assert(
      fc.property(fc.dictionary(validId, validDefinition, { minKeys: 1, maxKeys: 4 }), (table) => {
        const text = stringify({ schema_version: 8, tool_mcp_servers: table });
        const registry = buildRegistry([{ file: '/cfg/valid.toml', bytes: encoder.encode(text) }]);
        expect(registry.diagnostics).toEqual([]);
        expect(registry.servers.size).toBe(Object.keys(table).length);
        for (const [id, fields] of Object.entries(table)) {
          const definition = registry.servers.get(id)?.definition;
          expect(definition).toEqual({ id, ...fields });
          const order = ['id', ...FIELDS.map((f) => f.name)];
          const keys = Object.keys(definition ?? {});
          expect(keys).toEqual(order.filter((k) => keys.includes(k)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
