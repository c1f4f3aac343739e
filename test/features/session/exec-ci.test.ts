/**
 * `codex-mmo exec` as CI runs it, on the built CLI with real Codex and a scripted model: an open
 * stdin that never closes is not read (unless the prompt is `-`), a credential the model repeats
 * is masked on stdout, and a missing --cwd, a Codex script with a missing interpreter or a
 * broken credentials.env fail as codex-mmo diagnostics (exit 1) before any session is recorded.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { useScriptedSession } from '../../support/scripted-session.js';
import {
  CLI,
  echoServer,
  makeWorld,
  profileToml,
  runCliProcess,
  runInWorld,
  type CliRun,
} from '../../support/world.js';

const CANARY = 'ci-canary-credential-4d2f9a';

const scripted = useScriptedSession(
  {
    registry: echoServer('notes', { tools: 'note', envVars: ['NOTES_TOKEN'] }),
    profile: profileToml('ci', 'lead', { lead: { grants: { notes: {} } } }),
    credentials: `NOTES_TOKEN=${CANARY}\n`,
  },
  () => [{ type: 'message', text: `the credential is ${CANARY} (repeated)` }],
);

/** Runs exec with stdin an open pipe that this test never closes. */
function execWithOpenStdin(args: readonly string[], timeoutMs: number): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args, ...scripted.world.dirArgs], {
    cwd: scripted.world.workDir,
    env: scripted.world.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, signal, stdout, stderr });
    });
  });
}

async function sessionCount(): Promise<number> {
  const dir = join(scripted.world.stateDir, 'sessions');
  return existsSync(dir) ? (await readdir(dir)).length : 0;
}

describe('exec in CI', () => {
  it('does not wait on an open stdin, and masks a repeated credential on stdout', async () => {
    const r = await execWithOpenStdin(
      ['exec', scripted.world.packDir, 'say the credential'],
      120_000,
    );
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('the credential is *** (repeated)');
    expect(r.stdout + r.stderr).not.toContain(CANARY);
  }, 150_000);

  it('--cwd of a missing directory is a diagnostic (exit 1) and records no session', async () => {
    const before = await sessionCount();
    const r = await runInWorld(scripted.world, [
      'exec',
      scripted.world.packDir,
      'hi',
      '--cwd',
      '/missing-dir-x',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[session-cwd-invalid]');
    expect(r.stderr).toContain('/missing-dir-x does not exist');
    expect(await sessionCount()).toBe(before);
  }, 60_000);

  it('a --codex-bin script with a missing interpreter is a diagnostic (exit 1)', async () => {
    const bin = join(scripted.world.root, 'bad-codex');
    await writeFile(bin, '#!/nonexistent/interpreter\necho hi\n');
    await chmod(bin, 0o755);
    const dirArgs = [...scripted.world.dirArgs];
    const at = dirArgs.indexOf('--codex-bin');
    if (at >= 0) dirArgs.splice(at, 2);
    const r = await runCliProcess(
      ['exec', scripted.world.packDir, 'hi', '--json', ...dirArgs, '--codex-bin', bin],
      scripted.world.env,
      scripted.world.workDir,
    );
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { ok: boolean; diagnostics: { code: string }[] };
    expect(out.ok).toBe(false);
    expect(out.diagnostics.map((d) => d.code)).toEqual(['codex-not-runnable']);
  }, 60_000);

  it('a NUL in credentials.env stops exec before launch, naming the variable only', async () => {
    const broken = await makeWorld({
      registry: echoServer('notes', { tools: 'note', envVars: ['NOTES_TOKEN'] }),
      profile: profileToml('ci', 'lead', { lead: { grants: { notes: {} } } }),
      modelUrl: scripted.model.baseUrl,
      credentials: `NOTES_TOKEN=${CANARY}\u0000tail\n`,
    });
    const started = Date.now();
    const r = await runInWorld(broken, ['exec', broken.packDir, 'hi']);
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.stderr).toContain('error[credentials-nul-character] NOTES_TOKEN');
    expect(r.stderr).not.toContain(CANARY);
    expect(existsSync(join(broken.stateDir, 'sessions'))).toBe(false);
  }, 60_000);
});
