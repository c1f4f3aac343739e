/**
 * `codex-mmo scripted-model --script FILE` names tools as the operator writes them
 * (`SERVER.TOOL`, registry ID and the server's own tool name), while Codex offers them under
 * model-safe names (`my-notes` / `take-note` as `mcp__my_notes` / `take_note`). A script step and
 * a `when_offered` naming a hyphenated server and tool reach the real server through real Codex.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  CLI,
  echoServer,
  makeWorld,
  profileToml,
  requireBuild,
  runInWorld,
  waitFor,
  type World,
} from '../../support/world.js';

const SCRIPT = {
  scripts: [
    {
      when_offered: 'my-notes',
      steps: [
        { tool: 'my-notes.take-note', arguments: { text: 'hyphen-marker-57' } },
        { reply: 'noted: {{last_output}}' },
      ],
    },
    { steps: [{ reply: 'no section for my-notes' }] },
  ],
};

let world: World;
let model: ChildProcess;
let callLog: string;
const out = { stdout: '', stderr: '' };

beforeAll(async () => {
  requireBuild();
  world = await makeWorld({
    registry: (root) =>
      echoServer('my-notes', {
        tools: 'take-note',
        args: ['--call-log', join(root, 'calls.jsonl')],
      }),
    profile: profileToml('hyphens', 'lead', { lead: { grants: { 'my-notes': {} } } }),
  });
  callLog = join(world.root, 'calls.jsonl');
  const scriptFile = join(world.root, 'script.json');
  await writeFile(scriptFile, JSON.stringify(SCRIPT));
  model = spawn(process.execPath, [CLI, 'scripted-model', '--script', scriptFile], {
    env: world.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  model.stdout?.on('data', (d: Buffer) => (out.stdout += d.toString()));
  model.stderr?.on('data', (d: Buffer) => (out.stderr += d.toString()));
  await waitFor(() => out.stderr.includes('serving'), 30_000);
  await writeFile(join(world.configDir, 'codex-base.toml'), out.stdout);
});

afterAll(() => {
  if (model.exitCode === null) model.kill('SIGKILL');
});

describe('scripted-model script names', () => {
  it('calls SERVER.tool-name of a hyphenated server and tool under the names Codex offers', async () => {
    const result = await runInWorld(world, ['exec', world.packDir, 'take a note']);
    expect(result.code, result.stderr).toBe(0);
    // the when_offered section matched, and the call came back from the server
    expect(result.stdout).not.toContain('no section for my-notes');
    expect(result.stdout).toContain('noted:');
    expect(result.stdout).toContain('hyphen-marker-57');
    expect(out.stderr).toMatch(/turn \d+: call mcp__my_notes(__)?\.take_note/);
    const calls = (await readFile(callLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name?: string; arguments?: unknown });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.name).toBe('take-note');
    expect(calls[0]?.arguments).toEqual({ text: 'hyphen-marker-57' });
  });
});
