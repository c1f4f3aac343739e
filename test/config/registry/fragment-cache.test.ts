/**
 * The per-fragment validation cache of `loadRegistryCached`: a cold and a warm load give exactly
 * what `loadRegistrySync` gives for every fixture of the corpus; an entry is used when the bytes
 * are unchanged (hit), not when they change (miss) or when the salt changes; a corrupt, foreign or
 * malformed entry is recomputed; results with errors (a literal credential) are never stored.
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import {
  fragmentCacheFile,
  type FragmentCache,
} from '../../../src/config/registry/fragment-cache.js';
import { loadRegistryCached } from '../../../src/config/registry/load-registry-cached.js';
import { loadRegistrySync } from '../../../src/config/registry/load-registry.js';
import type { Registry } from '../../../src/config/registry/types.js';

const corpus = resolve(import.meta.dirname, '../../fixtures/registry');
const base = mkdtempSync(join(tmpdir(), 'codex-mmo-fragment-cache-'));
let counter = 0;

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** A config dir whose tool-mcp.d holds `files` (name → text or bytes), and a cache beside it. */
function world(files: Record<string, string | Buffer>): {
  configDir: string;
  cache: FragmentCache;
} {
  const dir = join(base, String(counter++));
  const registryDir = join(dir, 'config', 'tool-mcp.d');
  mkdirSync(registryDir, { recursive: true });
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(registryDir, name), content);
  return { configDir: join(dir, 'config'), cache: { dir: join(dir, 'cache'), salt: 'test 1' } };
}

/** Everything a registry holds, positions included, as comparable JSON. */
function snapshot(registry: Registry): string {
  return JSON.stringify({
    servers: [...registry.servers].map(([id, entry]) => [
      id,
      { ...entry, positions: entry.positions?.trie() },
    ]),
    statuses: registry.statuses,
    files: registry.files,
    diagnostics: registry.diagnostics,
  });
}

const entries = (cache: FragmentCache): string[] => {
  try {
    return readdirSync(cache.dir).sort();
  } catch {
    return [];
  }
};

const FRAGMENT = `schema_version = 8

[tool_mcp_servers.notes]
transport = "stdio"
command = "notes-server"
args = ["--stdio"]
env = { LOG_LEVEL = "info" }
enabled_tools = ["note", "read"]
default_tools_approval_mode = "writes"

[tool_mcp_servers.notes.tools.note]
approval_mode = "prompt"
`;

describe('the fixture corpus through the cache', () => {
  const cases: [string, string][] = [
    ...readdirSync(join(corpus, 'valid'))
      .filter((n) => n.endsWith('.toml'))
      .map((n): [string, string] => [`valid/${n}`, join(corpus, 'valid', n)]),
    ...readdirSync(join(corpus, 'invalid')).map((n): [string, string] => [
      `invalid/${n}`,
      join(corpus, 'invalid', n),
    ]),
  ];
  it('has a corpus', () => {
    expect(cases.length).toBeGreaterThan(30);
  });
  for (const [name, path] of cases) {
    it(`${name}: cold and warm loads equal the uncached load`, async () => {
      const { configDir, cache } = world({});
      const registryDir = join(configDir, 'tool-mcp.d');
      if (path.endsWith('.toml')) cpSync(path, join(registryDir, 'fragment.toml'));
      else {
        for (const f of readdirSync(path).filter((n) => n.endsWith('.toml'))) {
          cpSync(join(path, f), join(registryDir, f));
        }
      }
      const expected = snapshot(loadRegistrySync(configDir));
      expect(snapshot(await loadRegistryCached(configDir, cache))).toBe(expected);
      expect(snapshot(await loadRegistryCached(configDir, cache))).toBe(expected);
    });
  }
  it('stores every valid fixture (the warm loads above used entries)', async () => {
    const files = Object.fromEntries(
      readdirSync(join(corpus, 'valid'))
        .filter((n) => n.endsWith('.toml'))
        .map((n) => [n, readFileSync(join(corpus, 'valid', n))]),
    );
    const { configDir, cache } = world(files);
    await loadRegistryCached(configDir, cache);
    expect(entries(cache)).toHaveLength(Object.keys(files).length);
  });
});

describe('hits and misses', () => {
  it('uses a stored entry while the bytes are unchanged', async () => {
    const { configDir, cache } = world({ '10-notes.toml': FRAGMENT });
    const cold = await loadRegistryCached(configDir, cache);
    expect(cold.servers.get('notes')?.definition).toMatchObject({ command: 'notes-server' });
    const [entry] = entries(cache);
    expect(entry).toMatch(/^[0-9a-f]{32}\.json$/);
    // an entry is what a warm load returns: edit it and the edit shows
    const file = join(cache.dir, entry ?? '');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"notes-server"', '"from-cache"'));
    const warm = await loadRegistryCached(configDir, cache);
    expect(warm.servers.get('notes')?.definition).toMatchObject({ command: 'from-cache' });
    expect(
      warm.servers.get('notes')?.positions?.lookup(['tool_mcp_servers', 'notes', 'args']),
    ).toEqual({ line: 6, column: 1 });
  });

  it('recomputes when the fragment changes, and when the salt changes', async () => {
    const { configDir, cache } = world({ '10-notes.toml': FRAGMENT });
    await loadRegistryCached(configDir, cache);
    writeFileSync(
      join(configDir, 'tool-mcp.d', '10-notes.toml'),
      FRAGMENT.replace('notes-server', 'other-server'),
    );
    const changed = await loadRegistryCached(configDir, cache);
    expect(changed.servers.get('notes')?.definition).toMatchObject({ command: 'other-server' });
    // the new entry replaced the old one of the same fragment
    expect(entries(cache)).toHaveLength(1);
    // a new salt (another build) does not use the entry, and rewrites it
    const file = join(cache.dir, entries(cache)[0] ?? '');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"other-server"', '"from-cache"'));
    const rebuilt = await loadRegistryCached(configDir, { ...cache, salt: 'test 2' });
    expect(rebuilt.servers.get('notes')?.definition).toMatchObject({ command: 'other-server' });
    expect(entries(cache)).toHaveLength(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ salt: 'test 2' });
  });

  it('removes entries of an older format when it writes, and keeps one entry per fragment', async () => {
    const { configDir, cache } = world({
      '10-a.toml': FRAGMENT,
      '20-b.toml': FRAGMENT.replaceAll('notes', 'b'),
    });
    mkdirSync(cache.dir, { recursive: true });
    const old = `${'a'.repeat(16)}-${'b'.repeat(64)}.json`;
    writeFileSync(join(cache.dir, old), '{}');
    await loadRegistryCached(configDir, cache);
    expect(entries(cache)).not.toContain(old);
    expect(entries(cache)).toHaveLength(2);
  });

  it('recomputes a corrupt, truncated, foreign or malformed entry, giving the same result', async () => {
    const { configDir, cache } = world({ '10-notes.toml': FRAGMENT });
    const expected = snapshot(loadRegistrySync(configDir));
    await loadRegistryCached(configDir, cache);
    const file = fragmentCacheFile(cache, {
      file: join(configDir, 'tool-mcp.d', '10-notes.toml'),
      bytes: Buffer.from(FRAGMENT),
    });
    const good = readFileSync(file, 'utf8');
    const parsed = JSON.parse(good) as { text: string; result: Record<string, unknown> };
    const bad = [
      'not json {',
      good.slice(0, good.length / 2),
      '',
      'null',
      JSON.stringify({ ...parsed, salt: 'test 0' }),
      JSON.stringify({ ...parsed, file: '/elsewhere.toml' }),
      JSON.stringify({ ...parsed, text: parsed.text.replace('notes-server', 'other-server') }),
      JSON.stringify({ ...parsed, text: `${parsed.text} ` }),
      JSON.stringify({ ...parsed, text: 7 }),
      JSON.stringify({ ...parsed, format: 99 }),
      JSON.stringify({ ...parsed, result: { ...parsed.result, file: '/elsewhere.toml' } }),
      JSON.stringify({ ...parsed, result: { ...parsed.result, servers: 'x' } }),
      JSON.stringify({ ...parsed, result: { ...parsed.result, servers: [{ id: 'notes' }] } }),
      JSON.stringify({
        ...parsed,
        result: { ...parsed.result, diagnostics: [{ severity: 'error', code: 'x', message: 'y' }] },
      }),
    ];
    for (const text of bad) {
      writeFileSync(file, text);
      expect(snapshot(await loadRegistryCached(configDir, cache)), text.slice(0, 60)).toBe(
        expected,
      );
    }
    // after a recompute the entry is good again
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(good));
  });

  it('keeps working when the cache cannot be written', async () => {
    const { configDir } = world({ '10-notes.toml': FRAGMENT });
    const blocker = join(base, `file-${String(counter++)}`);
    writeFileSync(blocker, 'not a directory');
    const cache = { dir: join(blocker, 'cache'), salt: 'x' };
    expect(snapshot(await loadRegistryCached(configDir, cache))).toBe(
      snapshot(loadRegistrySync(configDir)),
    );
  });

  it('answers position lookups from a warm entry as from the fragment, prototype names included', async () => {
    const { configDir, cache } = world({ '10-notes.toml': FRAGMENT });
    const cold = (await loadRegistryCached(configDir, cache)).servers.get('notes')?.positions;
    const warm = (await loadRegistryCached(configDir, cache)).servers.get('notes')?.positions;
    expect(warm).toBeDefined();
    const paths = [
      ['tool_mcp_servers', 'notes', 'command'],
      ['tool_mcp_servers', 'notes', 'constructor'],
      ['tool_mcp_servers', '__proto__'],
      ['toString'],
      ['tool_mcp_servers', 'notes', 'enabled_tools', 0],
      ['tool_mcp_servers', 'notes', 'enabled_tools', 99],
    ];
    for (const path of paths) {
      expect(warm?.lookup(path), JSON.stringify(path)).toEqual(cold?.lookup(path));
      expect(warm?.has(path), JSON.stringify(path)).toBe(cold?.has(path));
    }
    expect(warm?.lookup(['toString'])).toBeUndefined();
    expect(warm?.has(['tool_mcp_servers', 'notes', 'constructor'])).toBe(false);
  });
});

describe('no credential values in the cache', () => {
  it('stores no fragment with a credential-shaped string in a comment', async () => {
    const token = 'ghp_CANARYabcdefghijklmnopqrstuvwxyz0123';
    const { configDir, cache } = world({
      '10-notes.toml': `# GITHUB_TOKEN=${token}\n${FRAGMENT}`,
      '20-ok.toml': FRAGMENT.replaceAll('notes', 'other'),
    });
    const expected = snapshot(loadRegistrySync(configDir));
    expect(snapshot(await loadRegistryCached(configDir, cache))).toBe(expected);
    expect(snapshot(await loadRegistryCached(configDir, cache))).toBe(expected);
    expect(entries(cache)).toHaveLength(1);
    for (const entry of entries(cache)) {
      expect(readFileSync(join(cache.dir, entry), 'utf8')).not.toContain('CANARY');
    }
  });
  it('stores no result with errors, so a literal credential never reaches it', async () => {
    const canary = 'sk-proj-CANARYabcdefghijklmnopqrstuvwxyz0123456789';
    const { configDir, cache } = world({
      '10-notes.toml': FRAGMENT.replace('LOG_LEVEL = "info"', `API_KEY = "${canary}"`),
      '20-ok.toml': FRAGMENT.replaceAll('notes', 'other'),
    });
    const registry = await loadRegistryCached(configDir, cache);
    expect(registry.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(entries(cache)).toHaveLength(1);
    for (const entry of entries(cache)) {
      const text = readFileSync(join(cache.dir, entry), 'utf8');
      expect(text).not.toContain('CANARY');
      expect(text).toContain('other-server');
    }
  });
});
