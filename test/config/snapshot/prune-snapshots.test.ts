/**
 * `snapshot prune`: snapshots that a session record references, or that an installed pack
 * compiles to now, stay; so do fresh ones; every other snapshot is removed.
 */
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { SESSION_FORMAT } from '../../../src/runtime/session/session-record.js';
import {
  createSessionDir,
  sessionDir,
  writeSessionRecord,
} from '../../../src/runtime/session/session-store.js';
import { runCli } from '../../support/cli.js';
import { tmpDir } from '../../support/tmp.js';

const FRAGMENT = `schema_version = 8

[tool_mcp_servers.notes]
transport = "stdio"
command = "/bin/true"
enabled_tools = ["note", "read"]
default_tools_approval_mode = "prompt"
`;

function pack(name: string, tools: string[]): string {
  return `schema_version = 8
name = "${name}"
root = "lead"

[agents.lead]
description = "lead"
instructions = "lead"

[agents.lead.tool_mcp_servers.notes]
enabled_tools = ${JSON.stringify(tools)}
`;
}

describe('snapshot prune', () => {
  it('keeps referenced and fresh snapshots and removes the rest', async () => {
    const root = await tmpDir('codex-mmo-snapprune-');
    const dirs = ['config', 'data', 'state'].map((d) => join(root, d));
    const [configDir = '', dataDir = '', stateDir = ''] = dirs;
    await mkdir(join(configDir, 'tool-mcp.d'), { recursive: true });
    await writeFile(join(configDir, 'tool-mcp.d', '10-notes.toml'), FRAGMENT);
    const dirArgs = ['--config-dir', configDir, '--data-dir', dataDir, '--state-dir', stateDir];
    const cli = (args: string[]) => runCli([...args, ...dirArgs]);
    const packDir = async (name: string, tools: string[]): Promise<string> => {
      const dir = join(root, name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'profile.toml'), pack(name, tools));
      return dir;
    };
    const compile = async (nameOrPath: string): Promise<string> => {
      const result = await cli(['snapshot', 'compile', nameOrPath, '--json']);
      expect(result.code, result.stderr).toBe(0);
      return result.json<{ id: string }>().id;
    };

    expect((await cli(['profile', 'install', await packDir('installed', ['note'])])).code).toBe(0);
    const installed = await compile('installed');
    const bySession = await compile(await packDir('sessioned', ['read']));
    const orphan = await compile(await packDir('orphan', ['note', 'read']));
    const fresh = await compile(await packDir('fresh', ['read', 'note']));
    expect(new Set([installed, bySession, orphan, fresh]).size).toBe(4);

    const sessionId = '20260101T000000000Z-0000000a';
    const dir = sessionDir(stateDir, sessionId);
    await createSessionDir(dir);
    await writeSessionRecord(dir, {
      format: SESSION_FORMAT,
      id: sessionId,
      profile: 'sessioned',
      snapshot: bySession,
      mode: 'exec',
      cwd: '/',
      started: new Date().toISOString(),
      ended: new Date().toISOString(),
      status: 'ended',
      pid: 0x7ffffff0,
      mesh_socket: '/nonexistent.sock',
      processes: [],
    });
    // every snapshot but the fresh one was stored two hours ago
    const past = new Date(Date.now() - 2 * 60 * 60 * 1000);
    for (const id of [installed, bySession, orphan]) {
      await utimes(join(dataDir, 'snapshots', id.slice('sha256:'.length)), past, past);
    }

    const result = await cli(['snapshot', 'prune', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const out = result.json<{ removed: string[]; kept: { id: string; reason: string }[] }>();
    expect(out.removed).toEqual([orphan]);
    expect(out.kept).toEqual(
      expect.arrayContaining([
        { id: installed, reason: 'referenced' },
        { id: bySession, reason: 'referenced' },
        { id: fresh, reason: 'too-recent' },
      ]),
    );
    const left = await readdir(join(dataDir, 'snapshots'));
    expect(left.filter((n) => !n.startsWith('.')).sort()).toEqual(
      [installed, bySession, fresh].map((id) => id.slice('sha256:'.length)).sort(),
    );
    expect(left.some((n) => n.startsWith('.pruning-'))).toBe(false);
    // the remaining snapshots still verify
    const list = await cli(['snapshot', 'list', '--json']);
    expect(list.code).toBe(0);

    // once the session is pruned, its snapshot is no longer referenced
    expect((await cli(['session', 'prune', '--json'])).code).toBe(0);
    const again = await cli(['snapshot', 'prune', '--json']);
    expect(again.json<{ removed: string[] }>().removed).toEqual([bySession]);
  });
});
