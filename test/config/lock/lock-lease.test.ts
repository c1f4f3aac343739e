/**
 * The lease table of tool-mcp.lock: written by `renderLock` and read back exactly; a broken lease
 * is reported where it is, with what to do, and left out while the pin itself stays usable.
 */
import { describe, expect, it } from 'vitest';

import { parseLock, renderLock, type ServerPin } from '../../../src/config/lock/lock-format.js';
import { parseLease } from '../../../src/config/lock/lock-lease.js';

const d = (c: string) => `sha256:${c.repeat(64)}`;

const pin: ServerPin = {
  server: 'notes',
  protocolVersion: '2025-06-18',
  tools: [{ name: 'note', digest: d('a') }],
  lease: {
    protocol_version: '2025-06-18',
    server_info: { name: 'notes', version: '1.0.0', title: 'Notes' },
    capabilities: { tools: { listChanged: true }, logging: {} },
    instructions: 'Use note to keep notes.\nOne per line.',
    tools: [{ name: 'note', description: 'Keeps a note.', inputSchema: { type: 'object' } }],
  },
};

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('a lease in the lock file', () => {
  it('is written as JSON text under [servers.ID.lease] and read back as it was', () => {
    const text = renderLock({ servers: { notes: pin } });
    expect(text).toContain('[servers.notes.lease]');
    expect(text).toContain(
      String.raw`capabilities = "{\"logging\":{},\"tools\":{\"listChanged\":true}}"`,
    );
    const parsed = parseLock(encode(text), '/c/tool-mcp.lock');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.lock.servers.notes?.lease).toEqual(pin.lease);
    expect(renderLock(parsed.lock)).toBe(text);
  });

  it('reports a broken lease at its key and keeps the pin without it', () => {
    const text = renderLock({ servers: { notes: pin } }).replace(
      /^capabilities = .*$/m,
      'capabilities = "[1, 2]"',
    );
    const line = text.split('\n').findIndex((l) => l.startsWith('capabilities')) + 1;
    const parsed = parseLock(encode(text), '/c/tool-mcp.lock');
    expect(parsed.usable).toBe(true);
    expect(parsed.lock.servers.notes?.tools).toEqual(pin.tools);
    expect(parsed.lock.servers.notes?.lease).toBeUndefined();
    expect(parsed.diagnostics).toHaveLength(1);
    expect(parsed.diagnostics[0]).toMatchObject({
      code: 'lock-file-invalid',
      severity: 'warning',
      file: '/c/tool-mcp.lock',
      line,
      path: 'servers.notes.lease.capabilities',
    });
    expect(parsed.diagnostics[0]?.message).toContain('codex-mmo tool-mcp pin notes');
  });

  it('warns of an unknown key in a lease and keeps the lease', () => {
    const text = `${renderLock({ servers: { notes: pin } })}extra = 1\n`;
    const parsed = parseLock(encode(text), '/c/tool-mcp.lock');
    expect(parsed.lock.servers.notes?.lease).toEqual(pin.lease);
    expect(parsed.diagnostics.map((x) => [x.code, x.path])).toEqual([
      ['lock-file-unknown-key', 'servers.notes.lease.extra'],
    ]);
  });

  it.each([
    [{ server_info: '{}', capabilities: '{}', tools: '[]' }, 'server_info'],
    [{ server_info: '{"name":"n"}', capabilities: 'not json', tools: '[]' }, 'capabilities'],
    [{ server_info: '{"name":"n"}', capabilities: '{}', tools: '[{}]' }, 'tools'],
    [
      { server_info: '{"name":"n"}', capabilities: '{}', tools: '[]', instructions: 3 },
      'instructions',
    ],
  ])('refuses %j at %s', (value, key) => {
    const parsed = parseLease(value, '2025-06-18');
    expect(parsed).toMatchObject({ ok: false, key });
  });

  it('needs the protocol version of its pin', () => {
    const value = { server_info: '{"name":"n"}', capabilities: '{}', tools: '[]' };
    expect(parseLease(value, undefined)).toMatchObject({ ok: false });
    expect(parseLease(value, '2025-06-18')).toMatchObject({ ok: true });
  });
});
