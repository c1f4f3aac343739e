/**
 * `session list|show|stop`, `run` and `exec` argument handling, in-process through the router:
 * text and JSON output, stale sessions shown as ended, prefixes, and usage errors.
 */
import { createServer } from 'node:net';

import { describe, expect, it } from 'vitest';

import type { SessionRecord } from '../../../src/runtime/session/session-record.js';
import {
  createSessionDir,
  sessionDir,
  writeSessionRecord,
} from '../../../src/runtime/session/session-store.js';
import { resolveDirectories } from '../../../src/foundation/paths/directories.js';
import { startSession } from '../../../src/features/session/start-session.js';
import { runCli } from '../../support/cli.js';
import { tmpDir } from '../../support/tmp.js';
import { sessionRecord } from '../../support/plan-fixture.js';
import { CODEX, makeWorld } from '../../support/world.js';

async function stateWith(records: SessionRecord[]): Promise<string> {
  const state = await tmpDir();
  for (const r of records)
    await writeSessionRecord((await createSessionDir(sessionDir(state, r.id))).dir, r);
  return state;
}

const A = '20260101T000000000Z-aaaa0001';
const B = '20260102T000000000Z-bbbb0002';

describe('session list', () => {
  it('lists sessions oldest first; a running session whose supervisor is gone shows as failed', async () => {
    const state = await stateWith([
      sessionRecord(B, { status: 'stopped', exit_code: 0 }),
      sessionRecord(A),
    ]);
    const json = await runCli(['session', 'list', '--json', '--state-dir', state]);
    expect(json.code).toBe(0);
    expect(json.json<{ sessions: unknown[] }>().sessions).toEqual([
      expect.objectContaining({ id: A, status: 'failed', profile: 'team', processes: 2 }),
      expect.objectContaining({ id: B, status: 'stopped', exit_code: 0 }),
    ]);
    const text = await runCli(['session', 'list', '--state-dir', state]);
    expect(text.stdout.split('\n')[0]).toMatch(
      /^ID\s+STATUS\s+PROFILE\s+MODE\s+STARTED\s+PROCESSES$/,
    );
    expect(text.stdout).toContain(`${B}  stopped (0)`);
  });

  it('says so when there are no sessions', async () => {
    const state = await tmpDir();
    const result = await runCli(['session', 'list', '--state-dir', state]);
    expect(result.stdout).toContain('No sessions in');
    expect((await runCli(['session', 'list', '--json', '--state-dir', state])).json()).toEqual({
      sessions: [],
    });
  });
});

describe('session show', () => {
  it('shows one session by unique prefix, with its processes', async () => {
    const state = await stateWith([sessionRecord(A), sessionRecord(B)]);
    const text = await runCli(['session', 'show', '20260101', '--state-dir', state]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/status:\s+failed/);
    expect(text.stdout).toMatch(
      /researcher-1\s+researcher\s+failed\s+-\s+root\s+\/s\/homes\/researcher-1/,
    );
    expect(text.stdout).toContain(
      'researcher-1: codex app-server of participant researcher-1 exited unexpectedly',
    );
    const json = await runCli(['session', 'show', B, '--json', '--state-dir', state]);
    expect(json.json()).toMatchObject({ id: B, status: 'failed', dir: sessionDir(state, B) });
  });

  it('fails clearly for an unknown or ambiguous id', async () => {
    const state = await stateWith([sessionRecord(A), sessionRecord(B)]);
    const unknown = await runCli(['session', 'show', 'nope', '--state-dir', state]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no session 'nope'");
    const ambiguous = await runCli(['session', 'show', '2026', '--state-dir', state]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('matches 2 sessions');
    const usage = await runCli(['session', 'show', '--state-dir', state]);
    expect(usage.code).toBe(2);
  });
});

describe('session stop', () => {
  it('reports a session that has already ended', async () => {
    const state = await stateWith([
      sessionRecord(A),
      sessionRecord(B, { status: 'failed', exit_code: 1 }),
    ]);
    const stale = await runCli(['session', 'stop', A, '--state-dir', state]);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toBe(`Session ${A} has already failed.\n`);
    const failed = await runCli(['session', 'stop', B, '--json', '--state-dir', state]);
    expect(failed.json()).toEqual({ session: B, status: 'failed', stopped: false, forced: false });
  });
});

describe('run and exec arguments', () => {
  it('print help and reject wrong argument counts', async () => {
    for (const command of [
      ['run'],
      ['exec'],
      ['session', 'list'],
      ['session', 'show'],
      ['session', 'stop'],
      ['mesh', 'serve'],
    ]) {
      const help = await runCli([...command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: codex-mmo ${command.join(' ')}`);
      expect(help.stdout).toContain('--json');
    }
    expect((await runCli(['exec', 'profile-only'])).code).toBe(2);
    expect((await runCli(['run'])).code).toBe(2);
    expect((await runCli(['run', 'a', 'b'])).code).toBe(2);
    expect((await runCli(['mesh', 'serve', '--process', 'lead'])).stderr).toContain(
      '--session DIR is required',
    );
  });

  it('refuses an unknown profile before anything starts', async () => {
    const root = await tmpDir();
    const result = await runCli([
      'exec',
      'no-such-profile',
      'prompt',
      '--config-dir',
      `${root}/config`,
      '--data-dir',
      `${root}/data`,
      '--state-dir',
      `${root}/state`,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no-such-profile');
    expect(result.stderr).toContain('codex-mmo: exec no-such-profile: not started');
  });
});

describe('startSession', () => {
  it('refuses when the mmo_mesh command it would render does not exist', async () => {
    // a model address that accepts connections, so the launch checks pass
    const model = createServer((socket) => socket.destroy());
    await new Promise<void>((done) => model.listen(0, '127.0.0.1', done));
    const address = model.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const world = await makeWorld({
      registry: '',
      profile:
        'name = "p"\nroot = "a"\n[agents.a]\ndescription = "a"\ninstructions = "a"\nspawn = ["b"]\n' +
        '[agents.b]\ndescription = "b"\ninstructions = "b"\n',
      modelUrl: `http://127.0.0.1:${String(port)}/v1`,
    });
    const dirs = resolveDirectories(world.env, world.home, {
      configDir: world.configDir,
      dataDir: world.dataDir,
      stateDir: world.stateDir,
      codexBin: CODEX,
    });
    const result = await startSession({
      mode: 'exec',
      profile: world.packDir,
      prompt: 'x',
      codexArgs: [],
      dirs,
      env: world.env,
      home: world.home,
      cwd: world.workDir,
      cli: { command: process.execPath, args: [`${world.root}/missing/main.js`] },
      pid: process.pid,
    });
    expect(result.ok).toBe(false);
    model.close();
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'mesh-command-not-found' }),
    );
  });
});
