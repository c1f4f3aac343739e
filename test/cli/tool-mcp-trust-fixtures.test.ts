/**
 * The pin and credential-value fixture corpus (test/fixtures/pins/<case>/): each case holds the
 * registry as it was pinned (`pinned/`, turned into tool-mcp.lock with `pins.json`), the registry
 * now (`tool-mcp.d/`), optional `credentials.env` and launch variables (`env.json`), and the
 * diagnostics `tool-mcp validate` must report (`expected.json`), found offline. No credential
 * value is printed by validate or show.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

import { definitionIdentity, identityDigest } from '../../src/config/lock/definition-identity.js';
import { renderLock, type ServerPin } from '../../src/config/lock/lock-format.js';
import { buildRegistry } from '../../src/config/registry/build-registry.js';
import { resolveCommand } from '../../src/config/registry/readiness.js';
import { runCli } from '../support/cli.js';
import { tmpDir } from '../support/tmp.js';

const root = resolve(import.meta.dirname, '../fixtures/pins');
/** The codes this corpus is about (readiness problems of the fixtures' commands are left out). */
const TRUST_CODES = new Set([
  'definition-drift',
  'pin-definition-missing',
  'tool-not-in-pin',
  'tool-not-pinned',
  'package-version-unpinned',
  'known-credential-literal',
]);

interface PinSpec {
  tools: string[];
  offered?: string[];
  legacy?: boolean;
}

interface Expected {
  file: string;
  line?: number;
  column?: number;
  severity: string;
  code: string;
  path?: string;
  server?: string;
  /** Words the message must contain. */
  says?: string[];
}

const D = `sha256:${'0'.repeat(64)}`;

/** tool-mcp.lock as `tool-mcp pin` would have written it for the `pinned/` registry. */
async function lockOf(dir: string, env: Record<string, string>): Promise<string> {
  const specs = JSON.parse(readFileSync(join(dir, 'pins.json'), 'utf8')) as Record<string, PinSpec>;
  const pinnedDir = join(dir, 'pinned');
  const sources = existsSync(pinnedDir)
    ? readdirSync(pinnedDir).map((n) => ({
        file: join(pinnedDir, n),
        bytes: readFileSync(join(pinnedDir, n)),
      }))
    : [];
  const registry = buildRegistry(sources);
  const servers: Record<string, ServerPin> = {};
  for (const [id, spec] of Object.entries(specs)) {
    const definition = registry.servers.get(id)?.definition;
    if (definition === undefined) throw new Error(`pins.json names ${id}, not in pinned/`);
    const path =
      definition.transport === 'stdio'
        ? await resolveCommand(definition.command, env, '/nonexistent-home')
        : undefined;
    const identity = definitionIdentity(definition, path);
    servers[id] = {
      server: id,
      transport: definition.transport,
      serverName: `${id}-server`,
      serverVersion: '1.0.0',
      ...(spec.legacy === true
        ? {}
        : {
            definitionDigest: identityDigest(identity),
            definition: identity,
            offeredTools: spec.offered ?? spec.tools,
          }),
      tools: spec.tools.map((name) => ({ name, digest: D })),
    };
  }
  const text = renderLock({ servers });
  return spec(text, specs);
}

/** A legacy pin is written as lock_version 1, which did not know definitions. */
function spec(text: string, specs: Record<string, PinSpec>): string {
  return Object.values(specs).some((s) => s.legacy === true)
    ? text.replace(/lock_version = \d+/, 'lock_version = 1')
    : text;
}

describe('pin and credential-value fixtures', () => {
  const cases = readdirSync(root).sort();
  it('has a corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(5);
  });
  for (const name of cases) {
    it(`${name}: validate reports exactly its expected diagnostics, starting nothing`, async () => {
      const dir = join(root, name);
      const base = await tmpDir();
      const configDir = join(base, 'config');
      await mkdir(configDir);
      await cp(join(dir, 'tool-mcp.d'), join(configDir, 'tool-mcp.d'), { recursive: true });
      if (existsSync(join(dir, 'credentials.env'))) {
        await writeFile(
          join(configDir, 'credentials.env'),
          readFileSync(join(dir, 'credentials.env')),
          { mode: 0o600 },
        );
      }
      const vars = existsSync(join(dir, 'env.json'))
        ? (JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8')) as Record<string, string>)
        : {};
      const env = { PATH: process.env.PATH ?? '', HOME: base, ...vars };
      await writeFile(join(configDir, 'tool-mcp.lock'), await lockOf(dir, env));

      const result = await runCli(['tool-mcp', 'validate', '--json', '--config-dir', configDir], {
        env,
        home: base,
      });
      const json = result.json<{
        ok: boolean;
        diagnostics: (Expected & { message: string })[];
      }>();
      const actual = json.diagnostics
        .filter((d) => TRUST_CODES.has(d.code))
        .map((d) => ({ ...d, file: basename(d.file) }));
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected[];
      const without = <T extends object>(value: T, key: string): Partial<T> =>
        Object.fromEntries(Object.entries(value).filter(([k]) => k !== key)) as Partial<T>;
      expect(actual.map((d) => without(d, 'message'))).toEqual(
        expected.map((e) => without(e, 'says')),
      );
      expected.forEach((e, i) => {
        for (const word of e.says ?? []) expect(actual[i]?.message).toContain(word);
      });
      if (expected.some((e) => e.severity === 'error')) expect(result.code).toBe(1);

      // no credential value in any output, of validate or of show
      const secrets = [
        ...Object.values(vars),
        ...(existsSync(join(dir, 'credentials.env'))
          ? readFileSync(join(dir, 'credentials.env'), 'utf8')
              .split('\n')
              .map((l) => l.slice(l.indexOf('=') + 1))
              .filter((v) => v.length >= 8)
          : []),
      ];
      const outputs = [result.stdout, result.stderr];
      for (const id of new Set(json.diagnostics.map((d) => d.server).filter(Boolean))) {
        for (const form of [[], ['--json']]) {
          const shown = await runCli(
            ['tool-mcp', 'show', String(id), ...form, '--config-dir', configDir],
            { env, home: base },
          );
          outputs.push(shown.stdout, shown.stderr);
        }
      }
      for (const secret of secrets) {
        for (const out of outputs) expect(out).not.toContain(secret);
      }
    });
  }
});
