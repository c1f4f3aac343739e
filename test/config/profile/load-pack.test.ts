/**
 * Loading packs from disk: defaults, instruction files (inside the pack only, symlinks resolved),
 * and the problems of a missing directory or profile.toml.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadPack, MAX_PACK_FILE_BYTES } from '../../../src/config/profile/load-pack.js';
import { EXAMPLE_PACK } from '../../support/examples.js';
import { tmpDir } from '../../support/tmp.js';

const MINIMAL = `schema_version = 8
name = "mini"
root = "lead"

[agents.lead]
description = "Lead"
instructions_file = "prompts/lead.md"
`;

async function packWith(files: Record<string, string>): Promise<string> {
  const dir = await tmpDir();
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}

describe('loadPack', () => {
  it('loads the example pack with its instruction files and defaults', async () => {
    const { pack, diagnostics, files } = await loadPack(EXAMPLE_PACK);
    expect(diagnostics).toEqual([]);
    expect(files).toEqual(['lead.md', 'profile.toml', 'researcher.md', 'reviewer.md']);
    expect(pack).toBeDefined();
    expect(pack!.name).toBe('research');
    expect(pack!.root).toBe('lead');
    expect(Object.keys(pack!.agents)).toEqual(['lead', 'reviewer', 'researcher']);
    const lead = pack!.agents.lead!;
    expect(lead.instructions_file).toBe('lead.md');
    expect(lead.instructions).toContain('You lead a small research team');
    expect(lead.permissions).toBe('workspace-write');
    expect(lead.native_agents).toEqual(['reviewer']);
    expect(lead.spawn).toEqual(['researcher']);
    expect(lead.grants.everything).toEqual({
      server: 'everything',
      required: true,
      enabled_tools: ['echo', 'get-sum'],
    });
    const reviewer = pack!.agents.reviewer!;
    expect(reviewer.permissions).toBe('read-only');
    expect(reviewer.network_access).toBe(false);
    expect(reviewer.spawn).toEqual([]);
    expect(pack!.agents.researcher!.grants.research).toEqual({
      server: 'research',
      required: false,
      enabled_tools: ['echo', 'get-resource-links'],
    });
  });

  it('accepts inline instructions, a model, a grant without enabled_tools and native cycles', async () => {
    const dir = await packWith({
      'profile.toml': `schema_version = 8
name = "cyc"
root = "a"

[agents.a]
description = "A"
instructions = "Do A."
model = "gpt-5.6-sol"
native_agents = ["b"]

[agents.a.tool_mcp_servers.web]

[agents.b]
description = "B"
instructions = "Do B."
native_agents = ["a", "b"]
`,
    });
    const { pack, diagnostics } = await loadPack(dir);
    expect(diagnostics).toEqual([]);
    expect(pack!.agents.a).toMatchObject({ model: 'gpt-5.6-sol', instructions: 'Do A.' });
    expect(pack!.agents.a!.instructions_file).toBeUndefined();
    expect(pack!.agents.a!.grants.web).toEqual({ server: 'web', required: true });
    expect(pack!.description).toBeUndefined();
  });

  it('follows a symbolic link that stays inside the pack', async () => {
    const dir = await packWith({ 'profile.toml': MINIMAL, 'shared/lead.md': 'Lead well.' });
    await mkdir(join(dir, 'prompts'));
    await symlink('../shared/lead.md', join(dir, 'prompts', 'lead.md'));
    const { pack, diagnostics } = await loadPack(dir);
    expect(diagnostics).toEqual([]);
    expect(pack!.agents.lead!.instructions).toBe('Lead well.');
  });

  it('rejects a symbolic link that leads outside the pack', async () => {
    const outside = await packWith({ 'secret.md': 'outside text' });
    const dir = await packWith({ 'profile.toml': MINIMAL });
    await mkdir(join(dir, 'prompts'));
    await symlink(join(outside, 'secret.md'), join(dir, 'prompts', 'lead.md'));
    const { pack, diagnostics } = await loadPack(dir);
    expect(pack).toBeUndefined();
    expect(diagnostics).toMatchObject([
      {
        code: 'instructions-file-outside-pack',
        file: join(dir, 'profile.toml'),
        line: 7,
        column: 1,
        path: 'agents.lead.instructions_file',
      },
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain('outside text');
  });

  it('rejects a symlinked profile.toml that leads outside the pack', async () => {
    const outside = await packWith({ 'profile.toml': MINIMAL.replace('mini', 'outsider') });
    const dir = await packWith({ 'prompts/lead.md': 'Lead well.' });
    await symlink(join(outside, 'profile.toml'), join(dir, 'profile.toml'));
    const { pack, diagnostics } = await loadPack(dir);
    expect(pack).toBeUndefined();
    expect(diagnostics).toMatchObject([
      { code: 'pack-file-outside-pack', file: join(dir, 'profile.toml') },
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain('outsider');
  });

  it('follows a symlinked profile.toml that stays inside the pack', async () => {
    const dir = await packWith({ 'real/profile.toml': MINIMAL, 'prompts/lead.md': 'Lead well.' });
    await symlink('real/profile.toml', join(dir, 'profile.toml'));
    const { pack, diagnostics } = await loadPack(dir);
    expect(diagnostics).toEqual([]);
    expect(pack!.name).toBe('mini');
  });

  it('rejects a symlinked directory that leads outside the pack', async () => {
    const outside = await packWith({ 'lead.md': 'outside' });
    const dir = await packWith({ 'profile.toml': MINIMAL });
    await symlink(outside, join(dir, 'prompts'));
    const { diagnostics } = await loadPack(dir);
    expect(diagnostics.map((d) => d.code)).toEqual(['instructions-file-outside-pack']);
  });

  it('rejects an instruction path that is a directory', async () => {
    const dir = await packWith({ 'profile.toml': MINIMAL, 'prompts/lead.md/x': 'x' });
    const { diagnostics } = await loadPack(dir);
    expect(diagnostics.map((d) => d.code)).toEqual(['instructions-file-not-found']);
  });

  it('reports an instruction file that is not UTF-8 at its own position', async () => {
    const dir = await packWith({ 'profile.toml': MINIMAL });
    await mkdir(join(dir, 'prompts'));
    await writeFile(join(dir, 'prompts', 'lead.md'), Buffer.from([0x6f, 0x6b, 0x0a, 0xc3, 0x28]));
    const { diagnostics } = await loadPack(dir);
    expect(diagnostics).toMatchObject([
      { code: 'invalid-utf8', file: join(dir, 'prompts', 'lead.md'), line: 2 },
    ]);
    expect(diagnostics[0]!.message).toBe(
      'instructions file "prompts/lead.md" of role `lead` is not valid UTF-8 text; save it as UTF-8',
    );
  });

  it('reports a missing directory and a directory without profile.toml', async () => {
    const dir = await tmpDir();
    expect((await loadPack(join(dir, 'nope'))).diagnostics.map((d) => d.code)).toEqual([
      'pack-not-found',
    ]);
    const empty = await loadPack(dir);
    expect(empty.pack).toBeUndefined();
    expect(empty.diagnostics[0]!.code).toBe('pack-not-found');
    expect(empty.diagnostics[0]!.message).toContain('profile.toml');
  });

  it('warns, never silently, when network_access cannot be rendered for the permissions', async () => {
    const dir = await packWith({
      'profile.toml': `schema_version = 8
name = "net"
root = "a"

[agents.a]
description = "Reads"
instructions = "Read."
network_access = true

[agents.b]
description = "Does anything"
instructions = "Do."
permissions = "full-access"
network_access = false

[agents.c]
description = "Writes"
instructions = "Write."
permissions = "workspace-write"
network_access = true
`,
    });
    const { pack, diagnostics } = await loadPack(dir);
    // warnings only: the pack loads, and the setting is kept as written
    expect(pack?.agents.a?.network_access).toBe(true);
    expect(diagnostics.map((d) => [d.severity, d.code, d.path, d.line, d.column])).toEqual([
      ['warning', 'network-access-ignored', 'agents.a.network_access', 8, 1],
      ['warning', 'network-access-ignored', 'agents.b.network_access', 14, 1],
      ['warning', 'sandbox-reads-unrestricted', 'agents.b.permissions', 13, 1],
    ]);
    expect(diagnostics[0]!.message).toContain(
      'network_access = true has no effect for role `a`: with permissions = "read-only"',
    );
    expect(diagnostics[1]!.message).toContain(
      'network_access = false has no effect for role `b`: with permissions = "full-access"',
    );
  });

  it('keeps the grants of an invalid pack that are valid on their own, for the registry check', async () => {
    const dir = await packWith({
      'profile.toml': `schema_version = 8
name = "broken"
root = "missing"

[agents.a]
description = "A"
instructions = "A."

[agents.a.tool_mcp_servers.web]
enabled_tools = ["search"]

[agents.a.tool_mcp_servers.ida]
command = "ida"
`,
    });
    const loaded = await loadPack(dir);
    expect(loaded.pack).toBeUndefined();
    expect(loaded.diagnostics.map((d) => d.code).sort()).toEqual([
      'server-field-in-grant',
      'unknown-role',
    ]);
    expect(loaded.file).toBe(join(dir, 'profile.toml'));
    expect(loaded.positions?.lookup(['agents', 'a', 'tool_mcp_servers', 'web'])).toBeDefined();
    // a grant with errors of its own is kept too: its registry problems are still worth knowing
    expect(loaded.partial?.agents.a?.grants).toEqual({
      web: { server: 'web', required: true, enabled_tools: ['search'] },
      ida: { server: 'ida', required: true },
    });
  });

  it('refuses a profile.toml or an instruction file over the size limit, without reading it', async () => {
    const big = 'x'.repeat(MAX_PACK_FILE_BYTES + 1);
    const tooBigPack = await packWith({ 'profile.toml': `# ${big}\n` });
    const pack = await loadPack(tooBigPack);
    expect(pack.diagnostics).toMatchObject([
      { code: 'file-too-large', file: join(tooBigPack, 'profile.toml') },
    ]);
    expect(pack.diagnostics[0]!.message).toContain(`the limit is ${MAX_PACK_FILE_BYTES} bytes`);
    const tooBigFile = await packWith({ 'profile.toml': MINIMAL, 'prompts/lead.md': big });
    const file = await loadPack(tooBigFile);
    expect(file.diagnostics).toMatchObject([
      { code: 'file-too-large', path: 'agents.lead.instructions_file', line: 7, column: 1 },
    ]);
  });

  it('warns, and still loads, when a role lists itself in spawn', async () => {
    const dir = await packWith({
      'profile.toml': `schema_version = 8
name = "chain"
root = "lead"

[agents.lead]
description = "Leads"
instructions = "Lead."
spawn = ["worker"]

[agents.worker]
description = "Works"
instructions = "Work."
spawn = ["helper", "worker"]

[agents.helper]
description = "Helps"
instructions = "Help."
`,
    });
    const { pack, diagnostics } = await loadPack(dir);
    expect(pack?.agents.worker?.spawn).toEqual(['helper', 'worker']);
    expect(diagnostics.map((d) => [d.severity, d.code, d.path, d.line, d.column])).toEqual([
      ['warning', 'self-spawn', 'agents.worker.spawn', 13, 1],
    ]);
    expect(diagnostics[0]!.file).toBe(join(dir, 'profile.toml'));
    expect(diagnostics[0]!.message).toContain('role `worker` lists itself in `spawn`');
    expect(diagnostics[0]!.message).toContain('--max-participants, default 8');
    expect(diagnostics[0]!.message).toContain('remove `worker` from its own spawn list');
  });
});
