/**
 * `exec` driving its root through `codex app-server`, with real Codex and a scripted model:
 * `--json` prints one JSON event per line on stdout, the prompt comes from stdin only when it is
 * `-` (stdin is never read otherwise), a missing `--cwd` is a diagnostic before anything starts,
 * Codex options that the app-server cannot take are usage errors, and a session stopped with
 * `session stop` makes exec exit non-zero.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { useScriptedSession } from '../../support/scripted-session.js';
import {
  CLI,
  echoServer,
  profileToml,
  runInWorld,
  startInWorld,
  waitFor,
} from '../../support/world.js';

const CANARY = 'exec-canary-3c3c3c';

const releases: (() => void)[] = [];

const scripted = useScriptedSession(
  {
    registry: echoServer('notes', { tools: 'note', envVars: ['NOTES_TOKEN'] }),
    profile: profileToml('execapp', 'main', { main: { grants: { notes: {} } } }),
    credentials: `NOTES_TOKEN=${CANARY}\n`,
  },
  (request) => {
    const task = request.userTexts.join('\n');
    if (task.includes('HANG')) {
      return new Promise((resolve) =>
        releases.push(() => {
          resolve([{ type: 'message', text: 'late' }]);
        }),
      );
    }
    // the final message repeats a credential value the model saw: stdout must mask it
    return [
      {
        type: 'message',
        text: `EXEC-DONE ${task.includes('FROM-STDIN') ? 'stdin' : 'arg'} ${CANARY}`,
      },
    ];
  },
  {
    release: () => {
      for (const release of releases) release();
    },
  },
);

function runWithStdin(args: readonly string[], input: string | undefined) {
  const child = spawn(process.execPath, [CLI, ...args, ...scripted.world.dirArgs], {
    cwd: scripted.world.workDir,
    env: scripted.world.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // stdin stays open unless there is input: exec must not wait for it
  if (input !== undefined) child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, stdout, stderr });
    });
  });
}

describe('exec through codex app-server', () => {
  it('prints the final message on stdout, masked, and progress on stderr', async () => {
    const result = await runWithStdin(['exec', scripted.world.packDir, 'plain prompt'], undefined);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('EXEC-DONE arg ***\n');
    expect(result.stderr).toMatch(/root \(main\) turn started/);
    expect(result.stderr).toMatch(/root \(main\) turn completed/);
    expect(`${result.stdout}${result.stderr}`).not.toContain(CANARY);
  }, 90_000);

  it("reads the prompt from stdin only when it is '-'", async () => {
    const result = await runWithStdin(['exec', scripted.world.packDir, '-'], 'FROM-STDIN please');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('EXEC-DONE stdin');
  }, 90_000);

  it('prints one JSON event per line with --json', async () => {
    const result = await runInWorld(scripted.world, [
      'exec',
      scripted.world.packDir,
      'json please',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; process: string; text?: string });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'process.started',
        'turn.started',
        'message',
        'turn.completed',
        'process.ended',
      ]),
    );
    expect(events.find((e) => e.type === 'message')?.text).toBe('EXEC-DONE arg ***');
    expect(result.stdout).not.toContain(CANARY);
    expect(JSON.parse(result.stderr.trim().split('\n').at(-1) ?? '{}')).toMatchObject({
      status: 'ended',
      exit_code: 0,
    });
  }, 90_000);

  it('refuses a missing --cwd and Codex options the app-server cannot take', async () => {
    const before = (await readdir(join(scripted.world.stateDir, 'sessions')).catch(() => []))
      .length;
    const missing = await runInWorld(scripted.world, [
      'exec',
      scripted.world.packDir,
      'x',
      '--cwd',
      '/no/such/dir',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error[session-cwd-invalid]');
    const flag = await runInWorld(scripted.world, [
      'exec',
      scripted.world.packDir,
      'x',
      '--',
      '--full-auto',
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("'--full-auto' is not supported by exec");
    expect((await readdir(join(scripted.world.stateDir, 'sessions')).catch(() => [])).length).toBe(
      before,
    );
  }, 60_000);

  it('exits non-zero when the session is stopped with session stop', async () => {
    const exec = startInWorld(scripted.world, ['exec', scripted.world.packDir, 'HANG forever']);
    await waitFor(
      () => scripted.model.requests.some((r) => r.userTexts.some((t) => t.includes('HANG'))),
      60_000,
    );
    const listed = await runInWorld(scripted.world, ['session', 'list', '--json']);
    const running = (
      JSON.parse(listed.stdout) as { sessions: { id: string; status: string }[] }
    ).sessions.find((s) => s.status === 'running');
    const stopped = await runInWorld(scripted.world, ['session', 'stop', running?.id ?? '']);
    expect(stopped.code, stopped.stderr).toBe(0);
    const result = await exec.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/session \S+ was stopped/);
  }, 90_000);
});
