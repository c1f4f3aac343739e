/**
 * The compile orchestrator on a private copy of the team fixture: stored snapshot and plan,
 * concurrency, registry problems that do and do not concern the profile, and tool pins.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { compileProfile } from '../../../src/config/compile/compile-profile.js';
import { resolveDirectories } from '../../../src/foundation/paths/directories.js';
import { tmpDir } from '../../support/tmp.js';
import { FIXTURES } from '../../support/load-fixture.js';

async function setup() {
  const root = await tmpDir();
  await cp(join(FIXTURES, 'team/config'), join(root, 'config'), { recursive: true });
  await cp(join(FIXTURES, 'team/pack'), join(root, 'pack'), { recursive: true });
  const dirs = resolveDirectories({}, root, {
    configDir: join(root, 'config'),
    dataDir: join(root, 'data'),
    stateDir: join(root, 'state'),
  });
  return { root, dirs, compile: () => compileProfile({ nameOrPath: 'pack', dirs, cwd: root }) };
}

describe('compileProfile', () => {
  it('returns the stored snapshot and its plan', async () => {
    const s = await setup();
    const result = await s.compile();
    // the fixture's full-access role draws the one warning that Codex cannot deny its reads
    expect(result.diagnostics.map((d) => d.code)).toEqual(['sandbox-reads-unrestricted']);
    expect(result.created).toBe(true);
    expect(result.stored?.snapshot.profile.name).toBe('team');
    expect(result.plan?.processes.map((p) => p.root)).toEqual(['lead', 'researcher']);
    expect((await s.compile()).created).toBe(false);
  });

  it('survives concurrent compiles of the same profile', async () => {
    const s = await setup();
    const results = await Promise.all(Array.from({ length: 5 }, () => s.compile()));
    expect(new Set(results.map((r) => r.stored?.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const { readSnapshot } = await import('../../../src/config/snapshot/snapshot-store.js');
    await expect(readSnapshot(s.dirs.dataDir, results[0]!.stored!.id)).resolves.toBeDefined();
  });

  it('ignores problems of servers the profile does not grant', async () => {
    const s = await setup();
    await writeFile(
      join(s.dirs.configDir, 'tool-mcp.d/90-other.toml'),
      'schema_version = 8\n[tool_mcp_servers.other]\ntransport = "stdio"\ncommand = "x"\noauth = {}\n',
    );
    const result = await s.compile();
    expect(result.stored).toBeDefined();
    // the fixture's full-access role draws the one warning that Codex cannot deny its reads
    expect(result.diagnostics.map((d) => d.code)).toEqual(['sandbox-reads-unrestricted']);
  });

  it('stops on an invalid definition of a granted server, naming it', async () => {
    const s = await setup();
    const fragment = join(s.dirs.configDir, 'tool-mcp.d/10-servers.toml');
    await writeFile(
      fragment,
      (await readFile(fragment, 'utf8')).replace(
        'command = "notes-mcp"',
        'command = "notes-mcp"\nbearer_token = "plain"',
      ),
    );
    const result = await s.compile();
    expect(result.stored).toBeUndefined();
    const codes = result.diagnostics.map((d) => d.code);
    expect(codes).toContain('invalid-server-grant');
    expect(result.diagnostics.some((d) => d.server === 'notes' && d.file === fragment)).toBe(true);
  });

  it('stores tool pins of granted servers from tool-mcp.lock', async () => {
    const s = await setup();
    const { writeLock } = await import('../../../src/config/lock/lock-file.js');
    const digest = (c: string): string => `sha256:${c.repeat(64)}`;
    await writeLock(s.dirs.configDir, {
      servers: {
        alpha: {
          server: 'alpha',
          tools: [
            { name: 'read', digest: digest('a') },
            { name: 'write', digest: digest('b') },
          ],
        },
        unused: { server: 'unused', tools: [{ name: 'x', digest: digest('c') }] },
      },
    });
    const result = await s.compile();
    // the fixture's full-access role draws the one warning that Codex cannot deny its reads
    expect(result.diagnostics.map((d) => d.code)).toEqual(['sandbox-reads-unrestricted']);
    expect(result.stored?.snapshot.pins).toEqual({
      alpha: [
        { name: 'read', digest: digest('a') },
        { name: 'write', digest: digest('b') },
      ],
    });
  });
});
