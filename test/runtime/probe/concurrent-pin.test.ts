/**
 * Concurrent `tool-mcp pin` of different servers, in separate real processes, all land in
 * tool-mcp.lock: updates are serialised by the lock's guard file, none is lost.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

import { tmpDir } from '../../support/tmp.js';

const SERVER = join(import.meta.dirname, '..', '..', 'fixtures', 'servers', 'echo-server.mjs');
const MAIN = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts');
const COUNT = 8;

describe('concurrent pins', () => {
  it(`of ${COUNT} different servers in ${COUNT} processes all land`, async () => {
    const config = join(await tmpDir(), 'config');
    await mkdir(join(config, 'tool-mcp.d'), { recursive: true });
    const ids = Array.from({ length: COUNT }, (_, k) => `srv${k}`);
    await writeFile(
      join(config, 'tool-mcp.d', '10-many.toml'),
      `schema_version = 8\n${ids
        .map(
          (id) => `
[tool_mcp_servers.${id}]
transport = "stdio"
command = "${process.execPath}"
args = ["${SERVER}", "--tools", "echo"]
enabled_tools = ["echo"]
default_tools_approval_mode = "prompt"
`,
        )
        .join('')}`,
    );
    const run = promisify(execFile);
    const results = await Promise.all(
      ids.map((id) =>
        run(
          process.execPath,
          ['--import', 'tsx', MAIN, 'tool-mcp', 'pin', id, '--json', '--config-dir', config],
          { env: { PATH: process.env.PATH ?? '', HOME: config } },
        ).then(
          (r) => ({ code: 0, stdout: r.stdout }),
          (error: unknown) => error as { code: number; stdout: string },
        ),
      ),
    );
    for (const r of results) expect(r.code, r.stdout).toBe(0);
    const lock = await readFile(join(config, 'tool-mcp.lock'), 'utf8');
    for (const id of ids) expect(lock, id).toContain(`[servers.${id}]`);
    expect(existsSync(join(config, 'tool-mcp.lock.lck'))).toBe(false);
  }, 180_000);
});
