/**
 * Shared set-up for registry tests: a minimal valid stdio fragment, temporary config dirs with
 * given fragments, the fixture config dirs, and the spec's example fragment.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { tmpDir } from './tmp.js';

/** `test/fixtures/config` (configs named `basic` and `broken`). */
export const CONFIG_FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'config');

/** Both examples of the spec's "Operator registry" section, as one fragment. */
export const SPEC_EXAMPLE = readFileSync(
  join(import.meta.dirname, '..', 'fixtures', 'registry', 'valid', 'spec-example.toml'),
  'utf8',
);

/** A valid fragment defining one stdio server `id`; `extra` lines go inside its table. */
export function fragment(id: string, extra = '', command = 'node'): string {
  return `schema_version = 8

[tool_mcp_servers.${id}]
transport = "stdio"
command = "${command}"
enabled_tools = ["echo"]
default_tools_approval_mode = "auto"
${extra}`;
}

/** A temporary config dir whose `tool-mcp.d` holds `files` (name → content). */
export async function configWith(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await tmpDir();
  await mkdir(join(dir, 'tool-mcp.d'));
  for (const [name, content] of Object.entries(files)) {
    await writeFile(join(dir, 'tool-mcp.d', name), content);
  }
  return dir;
}
