/**
 * `codex-mmo exec` with real Codex, a scripted model and a real stdio MCP server that records its
 * environment: credentials reach the process's servers from credentials.env, the launch
 * environment wins over the file, and neither an unreferenced launch variable nor another
 * process's credential reaches the Codex process (seen through the model's own shell tool).
 * A missing variable of a required grant stops the launch before Codex runs.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { useScriptedSession } from '../../support/scripted-session.js';
import {
  allText,
  echoServer,
  makeWorld,
  ENV_AND_AUTH_COMMAND,
  onlySession,
  parseEnvOutput,
  profileToml,
  runInWorld,
} from '../../support/world.js';

const LEAD_CANARY = 'lead-canary-5f1e0c';
const WORKER_CANARY = 'worker-canary-93ab2d';
const SHARED_FILE_VALUE = 'shared-from-file-11aa';
const SHARED_LAUNCH_VALUE = 'shared-from-launch-22bb';
const UNREFERENCED_CANARY = 'unreferenced-canary-7c7c';

function registry(root: string): string {
  return (
    echoServer('recorder', {
      tools: 'note',
      envVars: ['LEAD_CRED', 'SHARED_CRED'],
      args: ['--record-env', join(root, 'recorder-env.json')],
    }) + echoServer('worker_srv', { tools: 'note', envVars: ['WORKER_CRED'] })
  );
}

const PROFILE = profileToml('envtest', 'lead', {
  lead: { spawn: ['worker'], control: ['worker'], grants: { recorder: {} } },
  worker: { grants: { worker_srv: {} } },
});

const scripted = useScriptedSession(
  {
    registry,
    profile: PROFILE,
    credentials: `LEAD_CRED=${LEAD_CANARY}\nWORKER_CRED=${WORKER_CANARY}\nSHARED_CRED=${SHARED_FILE_VALUE}\n`,
    // the home gets an auth.json copy, so the process keeps Codex's deny entries
    providerAuth: true,
  },
  (request) =>
    request.hasToolOutput
      ? [{ type: 'message', text: 'all done' }]
      : [
          {
            type: 'function_call',
            name: 'exec_command',
            arguments: { cmd: ENV_AND_AUTH_COMMAND, login: false },
          },
        ],
);

describe('exec: environment forwarding', () => {
  it('forwards exactly the referenced names, values from the launch env, then credentials.env', async () => {
    const result = await runInWorld(
      scripted.world,
      ['exec', scripted.world.packDir, 'show me the environment'],
      {
        SHARED_CRED: SHARED_LAUNCH_VALUE,
        UNREFERENCED_CANARY,
      },
    );
    expect(result.stderr).not.toContain('error[');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('all done');

    // the process's stdio server got its credentials: from credentials.env, launch env winning
    const serverEnv = JSON.parse(
      await readFile(join(scripted.world.root, 'recorder-env.json'), 'utf8'),
    ) as Record<string, string>;
    expect(serverEnv.LEAD_CRED).toBe(LEAD_CANARY);
    expect(serverEnv.SHARED_CRED).toBe(SHARED_LAUNCH_VALUE);
    expect(serverEnv.WORKER_CRED).toBeUndefined();
    expect(serverEnv.UNREFERENCED_CANARY).toBeUndefined();

    // the Codex process itself, as its shell tool sees it
    const output =
      scripted.model.requests.find((r) => r.hasToolOutput)?.toolOutputs[0]?.output ?? '';
    const shellEnv = parseEnvOutput(output);
    expect(shellEnv.PATH).toBeDefined();
    // the shell starts from Codex's core variables: no credential of the process reaches it
    expect(shellEnv.LEAD_CRED).toBeUndefined();
    expect(shellEnv.SHARED_CRED).toBeUndefined();
    expect(output).not.toContain(LEAD_CANARY);
    expect(output).not.toContain(SHARED_LAUNCH_VALUE);
    expect(output).not.toContain(UNREFERENCED_CANARY);
    expect(output).not.toContain(WORKER_CANARY);
    expect(output).not.toContain('UNREFERENCED_CANARY');
    // the mesh credential reaches mmo_mesh through env_vars; Codex keeps it out of the shell
    expect(shellEnv.CODEX_MMO_MESH_TOKEN).toBeUndefined();
    expect(output).not.toContain('CODEX_MMO_MESH_TOKEN');

    // the session: private home, never with .credentials.json, ended with exit 0
    const { dir, record } = await onlySession(scripted.world);
    expect(record).toMatchObject({
      status: 'ended',
      exit_code: 0,
      profile: 'envtest',
      mode: 'exec',
    });
    // the shell sees neither its Codex home nor (sandbox deny) the auth.json copy in it
    expect(shellEnv.CODEX_HOME).toBeUndefined();
    expect(shellEnv.AUTH_COPY_PRESENT).toBeUndefined();
    // the copy of auth.json is gone now that the session ended
    expect(existsSync(join(dir, 'homes', 'lead', 'auth.json'))).toBe(false);
    expect(existsSync(join(dir, 'homes', 'lead', '.credentials.json'))).toBe(false);
    // of Codex's own state only the rollouts stay (for `session logs`), beside the rendered files
    const kept = readdirSync(join(dir, 'homes', 'lead'));
    expect(kept).toContain('sessions');
    expect(kept.filter((n) => !['config.toml', 'agents', 'sessions'].includes(n))).toEqual([]);
    const config = await readFile(join(dir, 'homes', 'lead', 'config.toml'), 'utf8');
    expect(config).toContain('[mcp_servers.mmo_mesh]');
    expect(config).toContain(join(scripted.world.root, 'state'));
    expect(config).not.toContain('<filled-in-at-launch>');

    // no credential value in anything codex-mmo wrote (Codex's own transcripts under the private
    // home record the shell output the model asked for, as they would in ~/.codex)
    const stored = [
      await readFile(join(dir, 'session.json'), 'utf8'),
      await allText(join(dir, 'logs')),
      await readFile(join(dir, 'homes', 'lead', 'config.toml'), 'utf8'),
      result.stderr,
    ].join('\n');
    for (const canary of [LEAD_CANARY, WORKER_CANARY, SHARED_LAUNCH_VALUE, SHARED_FILE_VALUE]) {
      expect(stored).not.toContain(canary);
    }

    const listed = await runInWorld(scripted.world, ['session', 'list', '--json']);
    const sessions = (JSON.parse(listed.stdout) as { sessions: { id: string; status: string }[] })
      .sessions;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.status).toBe('ended');
  }, 90_000);

  it('refuses to start, before Codex runs, when a required grant lacks its variable', async () => {
    const before = scripted.model.requests.length;
    const world2 = await makeWorld({
      registry,
      profile: PROFILE,
      modelUrl: scripted.model.baseUrl,
      credentials: `SHARED_CRED=${SHARED_FILE_VALUE}\n`,
    });
    const result = await runInWorld(world2, ['exec', world2.packDir, 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[missing-env-var]');
    expect(result.stderr).toContain('LEAD_CRED');
    expect(result.stderr).toContain("server 'recorder'");
    expect(result.stderr).not.toContain(SHARED_FILE_VALUE);
    expect(scripted.model.requests.length).toBe(before);
    expect(existsSync(join(world2.root, 'recorder-env.json'))).toBe(false);
    const sessions = await readdir(join(world2.stateDir, 'sessions')).catch(() => []);
    expect(sessions).toEqual([]);

    const json = await runInWorld(world2, ['exec', world2.packDir, 'hi', '--json']);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout) as {
      ok: boolean;
      diagnostics: { code: string; server?: string }[];
    };
    expect(parsed.ok).toBe(false);
    expect(parsed.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'missing-env-var', server: 'recorder' }),
    );
  }, 60_000);
});

describe('run', () => {
  it('starts interactive Codex with the arguments after -- and passes its exit code through', async () => {
    const version = await runInWorld(scripted.world, [
      'run',
      scripted.world.packDir,
      '--',
      '--version',
    ]);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/codex-cli \d+\.\d+\.\d+/);
    const bad = await runInWorld(scripted.world, [
      'run',
      scripted.world.packDir,
      '--',
      '--no-such-codex-flag',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--no-such-codex-flag');
    // the TUI without a terminal: Codex's refusal, then what to run instead
    const noTerminal = await runInWorld(scripted.world, ['run', scripted.world.packDir]);
    expect(noTerminal.code).toBe(1);
    expect(noTerminal.stderr).toContain('needs a terminal; without one, run `codex-mmo exec');
    const listed = await runInWorld(scripted.world, ['session', 'list', '--json']);
    const sessions = (
      JSON.parse(listed.stdout) as {
        sessions: { mode: string; status: string; exit_code: number }[];
      }
    ).sessions.filter((s) => s.mode === 'run');
    expect(sessions.map((s) => [s.status, s.exit_code])).toEqual([
      ['ended', 0],
      ['failed', 2],
      ['failed', 1],
    ]);
  }, 60_000);
});
