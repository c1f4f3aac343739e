import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import {
  compareBytewise,
  isFragmentName,
  loadRegistry,
  readFragmentFiles,
} from '../../../src/config/registry/load-registry.js';
import { tmpDir } from '../../support/tmp.js';
import {
  CONFIG_FIXTURES as fixtures,
  configWith,
  fragment,
} from '../../support/registry-helpers.js';

describe('fragment discovery', () => {
  it('matches *.toml that is not hidden', () => {
    expect(isFragmentName('10-a.toml')).toBe(true);
    expect(isFragmentName('.hidden.toml')).toBe(false);
    expect(isFragmentName('.toml')).toBe(false);
    expect(isFragmentName('a.toml.bak')).toBe(false);
    expect(isFragmentName('a.TOML')).toBe(false);
    expect(isFragmentName('notes.md')).toBe(false);
  });

  it('orders names byte-wise, not by locale or number', () => {
    const names = ['b.toml', 'é.toml', '10-a.toml', 'B.toml', '2-a.toml', '_x.toml', 'a.toml'];
    expect([...names].sort(compareBytewise)).toEqual([
      '10-a.toml',
      '2-a.toml',
      'B.toml',
      '_x.toml',
      'a.toml',
      'b.toml',
      'é.toml',
    ]);
  });

  it('reads only fragments, in byte-wise order, with absolute paths', async () => {
    const dir = await configWith({
      'b.toml': fragment('b'),
      '10-a.toml': fragment('a'),
      'B.toml': fragment('c'),
      '.hidden.toml': 'not = = toml',
      'notes.txt': 'x',
      'x.toml.bak': 'x',
    });
    const { sources, diagnostics, registryDir } = await readFragmentFiles(dir);
    expect(registryDir).toBe(join(dir, 'tool-mcp.d'));
    expect(diagnostics).toEqual([]);
    expect(sources.map((s) => s.file)).toEqual(
      ['10-a.toml', 'B.toml', 'b.toml'].map((n) => join(dir, 'tool-mcp.d', n)),
    );
  });
});

describe('loadRegistry', () => {
  it('is an empty registry with an info diagnostic when tool-mcp.d is missing', async () => {
    const dir = await tmpDir();
    const registry = await loadRegistry(dir);
    expect(registry.servers.size).toBe(0);
    expect(registry.statuses).toEqual([]);
    expect(registry.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'info',
        code: 'registry-dir-missing',
        file: join(dir, 'tool-mcp.d'),
      }),
    ]);
  });

  it('reports a tool-mcp.d that is not a directory', async () => {
    const dir = await tmpDir();
    await writeFile(join(dir, 'tool-mcp.d'), 'x');
    const registry = await loadRegistry(dir);
    expect(registry.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ['error', 'registry-dir-unreadable'],
    ]);
    expect(registry.diagnostics[0]!.message).toContain('not a directory');
  });

  it('loads the basic fixture: hidden and non-toml files ignored, later fragment replaces', async () => {
    const registry = await loadRegistry(join(fixtures, 'basic'));
    const errors = registry.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toEqual([]);
    expect([...registry.servers.keys()]).toEqual(['local-echo', 'web']);
    const web = registry.servers.get('web')!;
    expect(web.definition.transport).toBe('streamable_http');
    expect(web.file).toBe(join(fixtures, 'basic', 'tool-mcp.d', '20-remote.toml'));
    expect(web.replaces).toEqual([join(fixtures, 'basic', 'tool-mcp.d', '10-local.toml')]);
    expect(registry.files.map((f) => f.split('/').pop())).toEqual([
      '10-local.toml',
      '20-remote.toml',
    ]);
  });

  it('turns every kind of unreadable fragment into a diagnostic and still loads the rest', async () => {
    const dir = await configWith({
      '10-good.toml': fragment('good'),
      '20-huge.toml': `${fragment('huge')}# ${'x'.repeat(5 * 1024 * 1024)}\n`,
      '30-nul.toml': `${fragment('nul')}\u0000\n`,
      '40-latin1.toml': Buffer.concat([Buffer.from(fragment('latin')), Buffer.from([0xe9, 0x0a])]),
      '50-empty.toml': '',
      '60-syntax.toml': 'schema_version = 8\n[tool_mcp_servers.s\n',
    });
    const d = join(dir, 'tool-mcp.d');
    await mkdir(join(d, '70-dir.toml'));
    await symlink(join(d, 'does-not-exist'), join(d, '80-dangling.toml'));
    execFileSync('mkfifo', [join(d, '90-fifo.toml')]);
    await symlink(join(d, '91-loop-b.toml'), join(d, '91-loop-a.toml'));
    await symlink(join(d, '91-loop-a.toml'), join(d, '91-loop-b.toml'));
    await symlink(join(d, '10-good.toml'), join(d, '95-link.toml'));

    const registry = await loadRegistry(dir);
    const byFile = new Map<string, string[]>();
    for (const diag of registry.diagnostics) {
      const name = (diag.file ?? '').split('/').pop() ?? '';
      byFile.set(name, [...(byFile.get(name) ?? []), diag.code]);
      expect(diag.message).not.toMatch(/\n\s+at /); // no stack trace
    }
    expect(byFile.get('20-huge.toml')).toEqual(['fragment-too-large']);
    expect(byFile.get('30-nul.toml')).toEqual(['toml-syntax']);
    expect(byFile.get('40-latin1.toml')).toEqual(['invalid-utf8']);
    expect(byFile.get('50-empty.toml')).toEqual(['schema-version-missing']);
    expect(byFile.get('60-syntax.toml')).toEqual(['toml-syntax']);
    expect(byFile.get('70-dir.toml')).toEqual(['fragment-not-a-file']);
    expect(byFile.get('80-dangling.toml')).toEqual(['fragment-unreadable']);
    expect(byFile.get('90-fifo.toml')).toEqual(['fragment-not-a-file']);
    expect(byFile.get('91-loop-a.toml')).toEqual(['fragment-unreadable']);
    expect(byFile.get('91-loop-b.toml')).toEqual(['fragment-unreadable']);
    const huge = registry.diagnostics.find((x) => x.code === 'fragment-too-large')!;
    expect(huge.message).toContain('5.0 MiB');
    const fifo = registry.diagnostics.find((x) => x.file?.endsWith('90-fifo.toml'))!;
    expect(fifo.message).toContain('named pipe');
    const loop = registry.diagnostics.find((x) => x.file?.endsWith('91-loop-a.toml'))!;
    expect(loop.message).toContain('symbolic links');
    // the good fragment loads; a symlink to a regular file is read like the file, and as the
    // later fragment it replaces the earlier definition of the same ID
    expect([...registry.servers.keys()]).toEqual(['good']);
    expect(registry.servers.get('good')!.file).toBe(join(d, '95-link.toml'));
    expect(registry.servers.get('good')!.replaces).toEqual([join(d, '10-good.toml')]);
  });
});
