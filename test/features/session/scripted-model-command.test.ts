/**
 * `codex-mmo scripted-model` as an operator uses it: start it, paste the lines it prints into
 * codex-base.toml, and run real Codex through `codex-mmo exec` offline. The script calls a Tool
 * MCP tool, runs a shell command and replies with the last result.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
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
  steps: [
    { tool: 'notes.note', arguments: { text: 'tool-marker-91' } },
    { shell: 'echo shell-marker-$((6*7))' },
    { reply: 'final answer: {{last_output}}' },
  ],
};

let world: World;
let model: ChildProcess;
const out = { stdout: '', stderr: '' };
let exited: Promise<number | null>;

beforeAll(async () => {
  requireBuild();
  world = await makeWorld({
    registry: echoServer('notes', { tools: 'note' }),
    profile: profileToml('offline', 'lead', { lead: { grants: { notes: {} } } }),
  });
  const scriptFile = join(world.root, 'script.json');
  await writeFile(scriptFile, JSON.stringify(SCRIPT));
  model = spawn(process.execPath, [CLI, 'scripted-model', '--script', scriptFile], {
    env: world.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  model.stdout?.on('data', (d: Buffer) => (out.stdout += d.toString()));
  model.stderr?.on('data', (d: Buffer) => (out.stderr += d.toString()));
  exited = new Promise((resolve) =>
    model.once('close', (code) => {
      resolve(code);
    }),
  );
  await waitFor(() => out.stderr.includes('serving'), 30_000);
});

afterAll(() => {
  if (model.exitCode === null) model.kill('SIGKILL');
});

describe('scripted-model', () => {
  it('prints codex-base.toml lines that let codex-mmo exec run offline, and stops on SIGTERM', async () => {
    expect(out.stdout).toMatch(/^model = "scripted-model"$/m);
    expect(out.stdout).toMatch(/base_url = "http:\/\/127\.0\.0\.1:\d+\/v1"/);
    await writeFile(join(world.configDir, 'codex-base.toml'), out.stdout);

    const doctor = await runInWorld(world, ['profile', 'doctor', world.packDir, '--json']);
    expect(doctor.stdout).not.toContain('codex-base-unknown-key');

    const result = await runInWorld(world, ['exec', world.packDir, 'try the tools']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('final answer:');
    expect(result.stdout).toContain('shell-marker-42');
    // the tool step reached the echo server and its answer came back
    expect(out.stderr).toMatch(/turn \d+: call mcp__notes(__)?\.note/);
    expect(out.stderr).toMatch(/turn \d+: call exec_command/);

    model.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out.stderr).toMatch(/stopped on SIGTERM after \d+ requests/);
  });

  it('rejects a malformed script with positioned diagnostics, before listening', async () => {
    const bad = join(world.root, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({ steps: [{ reply: 'ok' }, { tool: 'no-dot' }, { shel: 'ls' }] }),
    );
    const result = await runInWorld(world, ['scripted-model', '--script', bad, '--json']);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { diagnostics: { code: string; path: string }[] };
    expect(json.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['model-script-invalid', 'steps[1].tool'],
      ['model-script-invalid', 'steps[2]'],
    ]);
  });
});
