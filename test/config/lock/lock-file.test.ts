import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { readLock, readLockFile, writeLock } from '../../../src/config/lock/lock-file.js';
import {
  LOCK_HEADER,
  parseLock,
  pinsOf,
  renderLock,
  sameServerPin,
  withServerPin,
  type ServerPin,
  type ToolLock,
} from '../../../src/config/lock/lock-format.js';
import { surfaceDigests } from '../../../src/runtime/probe/tool-surface.js';
import { tmpDir } from '../../support/tmp.js';

const d = (c: string) => `sha256:${c.repeat(64)}`;

const firecrawl: ServerPin = {
  server: 'firecrawl',
  pinnedAt: '2026-01-02T03:04:05.000Z',
  transport: 'streamable_http',
  serverName: 'fc',
  serverVersion: '1.2.3',
  protocolVersion: '2025-06-18',
  tools: [
    {
      name: 'search',
      digest: d('a'),
      descriptionDigest: d('b'),
      inputSchemaDigest: d('c'),
      annotationsDigest: d('d'),
      description: 'Search the web.\nSecond "line".',
      inputSchema: '{"type":"object"}',
      annotations: '{"readOnlyHint":true}',
    },
    { name: 'a.b tool', digest: d('e'), inputSchemaDigest: d('f'), inputSchema: '{}' },
  ],
};

describe('lock format', () => {
  it('renders a header, stable order and round-trips', () => {
    const lock: ToolLock = withServerPin(withServerPin({ servers: {} }, firecrawl), {
      server: 'alpha',
      tools: [{ name: 'x', digest: d('1') }],
    });
    const text = renderLock(lock);
    expect(text.startsWith(LOCK_HEADER)).toBe(true);
    expect(text).toContain('codex-mmo tool-mcp pin');
    expect(text.indexOf('[servers.alpha]')).toBeLessThan(text.indexOf('[servers.firecrawl]'));
    // tools sorted by name
    expect(text.indexOf('"a.b tool"')).toBeLessThan(text.indexOf('tools.search'));
    const parsed = parseLock(new TextEncoder().encode(text), '/x/tool-mcp.lock');
    expect(parsed.diagnostics).toEqual([]);
    expect(renderLock(parsed.lock)).toBe(text);
    expect(parsed.lock.servers.firecrawl?.tools.map((t) => t.name)).toEqual(['a.b tool', 'search']);
    expect(parsed.lock.servers.firecrawl?.tools[1]?.description).toBe(
      'Search the web.\nSecond "line".',
    );
    expect((parse(text) as { lock_version: number }).lock_version).toBe(3);
  });

  it('round-trips what a server says of itself and every field of its tools (lock_version 3)', () => {
    const pin = {
      server: 'web',
      surface: {
        serverInfo: { digest: d('5'), text: '{"name":"web","version":"1"}' },
        instructions: { digest: d('6'), text: 'Use search first.' },
        prompts: { digest: d('7'), text: '[{"name":"greet"}]' },
      },
      tools: [
        {
          name: 'search',
          digest: d('1'),
          listedDigest: d('8'),
          listed: '{"_meta":{"x":1},"name":"search","title":"Search"}',
        },
      ],
    };
    const text = renderLock({ servers: { web: pin } });
    expect(text).toContain('instructions = "Use search first."');
    expect(text).toContain(`instructions_digest = "${d('6')}"`);
    expect(text).toContain(`listed_digest = "${d('8')}"`);
    const parsed = parseLock(new TextEncoder().encode(text), '/l');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.lock.servers.web).toEqual(pin);
    expect(pinsOf(parsed.lock).web).toEqual([
      { name: 'search', digest: d('1'), listed_digest: d('8') },
    ]);
  });

  it('reads a lock_version 2 pin, which has no server surface or listed tools', () => {
    const text = ['lock_version = 2', '[servers.old.tools.t]', `digest = "${d('a')}"`].join('\n');
    const parsed = parseLock(new TextEncoder().encode(text), '/l');
    expect(parsed.usable).toBe(true);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.lock.servers.old?.surface).toBeUndefined();
    expect(parsed.lock.servers.old?.tools[0]?.listedDigest).toBeUndefined();
  });

  it('drops a pin whose server surface is malformed or lacks instructions', () => {
    const text = [
      'lock_version = 3',
      '[servers.bad]',
      'instructions_digest = "nope"',
      `server_info_digest = "${d('1')}"`,
      '[servers.half]',
      `server_info_digest = "${d('1')}"`,
    ].join('\n');
    const parsed = parseLock(new TextEncoder().encode(text), '/l');
    expect(Object.keys(parsed.lock.servers)).toEqual([]);
    expect(parsed.diagnostics.map((x) => [x.code, x.path])).toEqual([
      ['lock-file-invalid', 'servers.bad.instructions_digest'],
      ['lock-file-invalid', 'servers.half'],
    ]);
  });

  it('reports invalid entries with position and keeps valid servers', () => {
    const text = [
      'lock_version = 1',
      'extra = 1',
      '[servers.good.tools.t]',
      `digest = "${d('a')}"`,
      '[servers.bad.tools.t]',
      'digest = "md5:abc"',
      '[servers.nodigest.tools.t]',
      'description = "x"',
    ].join('\n');
    const parsed = parseLock(new TextEncoder().encode(text), '/c/tool-mcp.lock');
    expect(Object.keys(parsed.lock.servers)).toEqual(['good']);
    const codes = parsed.diagnostics.map((x) => [x.code, x.severity, x.line, x.path]);
    expect(codes).toContainEqual(['lock-file-unknown-key', 'warning', 2, 'extra']);
    expect(codes).toContainEqual(['lock-file-invalid', 'error', 6, 'servers.bad.tools.t.digest']);
    expect(codes).toContainEqual(['lock-file-invalid', 'error', 7, 'servers.nodigest.tools.t']);
  });

  it('rejects an unknown lock_version and TOML syntax errors', () => {
    const newer = parseLock(new TextEncoder().encode('lock_version = 7\n'), '/l');
    expect(newer.diagnostics[0]?.message).toMatch(/newer.*upgrade codex-mmo/);
    const broken = parseLock(new TextEncoder().encode('lock_version = \n'), '/l');
    expect(broken.diagnostics[0]?.code).toBe('toml-syntax');
    expect(broken.diagnostics[0]?.line).toBe(1);
  });

  it('compares server pins ignoring the pin time', () => {
    expect(sameServerPin(firecrawl, { ...firecrawl, pinnedAt: 'later' })).toBe(true);
    expect(sameServerPin(firecrawl, { ...firecrawl, serverVersion: '2' })).toBe(false);
  });
});

describe('readLock / writeLock', () => {
  it('treats a missing lock as no pins', async () => {
    const dir = await tmpDir();
    expect(await readLock(dir)).toEqual({ pins: {}, leases: {}, diagnostics: [] });
    const contents = await readLockFile(dir);
    expect(contents.exists).toBe(false);
    expect(contents.file).toBe(join(dir, 'tool-mcp.lock'));
  });

  it('writes atomically and reads back ToolPins', async () => {
    const dir = join(await tmpDir(), 'nested', 'config');
    const file = await writeLock(dir, withServerPin({ servers: {} }, firecrawl));
    expect(file).toBe(join(dir, 'tool-mcp.lock'));
    expect(await readdir(dir)).toEqual(['tool-mcp.lock']);
    const { pins, diagnostics } = await readLock(dir);
    expect(diagnostics).toEqual([]);
    expect(pins).toEqual({
      firecrawl: [
        { name: 'a.b tool', digest: d('e') },
        { name: 'search', digest: d('a') },
      ],
    });
    expect(await readFile(file, 'utf8')).toBe(renderLock({ servers: { firecrawl } }));
  });

  it('reports an unreadable lock (a directory) as a diagnostic', async () => {
    const dir = await tmpDir();
    await mkdir(join(dir, 'tool-mcp.lock'));
    const { pins, diagnostics } = await readLock(dir);
    expect(pins).toEqual({});
    expect(diagnostics[0]?.code).toBe('lock-file-unreadable');
  });

  it('reports a corrupt lock with file and line', async () => {
    const dir = await tmpDir();
    await writeFile(join(dir, 'tool-mcp.lock'), 'lock_version = 1\n[servers.x]\ntools = 3\n');
    const { diagnostics } = await readLock(dir);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'lock-file-invalid', line: 3 });
  });
});

describe('surface digests', () => {
  it('digest covers name, description, schema and annotations, not title', () => {
    const base = { name: 't', description: 'd', inputSchema: { type: 'object' } };
    const a = surfaceDigests(base);
    expect(a.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(surfaceDigests({ ...base, title: 'T' }).digest).toBe(a.digest);
    expect(surfaceDigests({ ...base, description: 'e' }).digest).not.toBe(a.digest);
    expect(surfaceDigests({ ...base, name: 'u' }).digest).not.toBe(a.digest);
    expect(
      surfaceDigests({ ...base, inputSchema: { type: 'object', required: [] } }).digest,
    ).not.toBe(a.digest);
    const annotated = surfaceDigests({ ...base, annotations: { readOnlyHint: true } });
    expect(annotated.digest).not.toBe(a.digest);
    expect(annotated.inputSchema).toBe(a.inputSchema);
    expect(annotated.description).toBe(a.description);
    expect(a.annotations).toBeUndefined();
    // key order does not matter
    expect(
      surfaceDigests({ ...base, inputSchema: { properties: { b: {}, a: {} }, type: 'object' } })
        .digest,
    ).toBe(
      surfaceDigests({ ...base, inputSchema: { type: 'object', properties: { a: {}, b: {} } } })
        .digest,
    );
  });
});
