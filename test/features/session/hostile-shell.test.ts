/**
 * The session boundary against a hostile model (docs/design.md §9), with real `codex exec` in every
 * sandbox mode: the scripted model of the root and of a participant prints its environment from
 * login and non-login shells, reads the operator's files and the other process's home, aims a
 * participant outside the working directory (directly and through a symlink), and the working
 * directory carries a project-local `.codex/config.toml` adding a server. No credential, no
 * codex-mmo token and no project server reaches the model, no shell snapshot is left, and after
 * the session no file in the session directory holds a credential value.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  allText,
  echoServer,
  onlySession,
  parseEnvOutput,
  profileToml,
  runInWorld,
  type World,
} from '../../support/world.js';

const LEAD_CANARY = 'lead-canary-h05t11e';
const WORKER_CANARY = 'worker-canary-h05t22e';
const LAUNCH_CANARY = 'launch-canary-h05t33e';
const AUTH_CANARY = 'auth-canary-h05t44e';
const CANARIES = [LEAD_CANARY, WORKER_CANARY, LAUNCH_CANARY, AUTH_CANARY];

type Mode = 'read-only' | 'workspace-write' | 'full-access';

function shell(cmd: string): ScriptedItem {
  return { type: 'function_call', name: 'exec_command', arguments: { cmd, login: false } };
}

function mesh(name: string, args: Record<string, unknown>): ScriptedItem {
  return { type: 'function_call', namespace: 'mcp__mmo_mesh', name, arguments: args };
}

function isRole(request: ModelRequest, marker: string): boolean {
  return request.developerTexts.some((t) => t.includes(marker));
}

/** The hostile script; `reads` adds the file reads (not for full access, which cannot deny). */
function hostile(world: World, reads: boolean): (request: ModelRequest) => ScriptedItem[] {
  const session = join(world.stateDir, 'sessions', '*', 'homes');
  const operatorReads = [
    `cat ${join(world.configDir, 'credentials.env')}`,
    `cat ${join(world.baseCodexHome, 'auth.json')}`,
    `cat ${join(session, '*', 'auth.json')}`,
    `find ${join(world.stateDir, 'sessions')} -type f -exec cat {} +`,
    'echo READS-DONE',
  ].join('; ');
  return (request) => {
    const step = request.toolOutputs.length;
    if (isRole(request, 'ROLE-WORKER')) {
      const steps = [shell('env'), shell('bash -lc env'), ...(reads ? [shell(operatorReads)] : [])];
      return step < steps.length
        ? [steps[step] as ScriptedItem]
        : [{ type: 'message', text: 'WORKER-DONE' }];
    }
    const steps: ScriptedItem[] = [
      shell('env'),
      shell('bash -lc env'),
      mesh('spawn_participant', { role: 'worker', task: 'escape', cwd: world.root }),
      mesh('spawn_participant', {
        role: 'worker',
        task: 'escape',
        cwd: join(world.workDir, 'to-config'),
      }),
      mesh('spawn_participant', { role: 'worker', task: 'WORK' }),
      mesh('wait_participant', { participant: 'worker-1' }),
      ...(reads ? [shell(operatorReads)] : []),
    ];
    return step < steps.length
      ? [steps[step] as ScriptedItem]
      : [{ type: 'message', text: 'LEAD-DONE' }];
  };
}

function profile(mode: Mode): string {
  return profileToml('hostile', 'lead', {
    lead: { spawn: ['worker'], control: ['worker'], grants: { lead_srv: {} } },
    worker: { grants: { worker_srv: {} } },
  }).replace(/(\[agents\.(lead|worker)\]\n)/g, `$1permissions = "${mode}"\n`);
}

/** Files inside any directory called `name` under `dir`. */
async function filesUnder(dir: string, name: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.parentPath.split('/').includes(name))
    .map((e) => join(e.parentPath, e.name));
}

describe.each<Mode>(['read-only', 'workspace-write', 'full-access'])(
  'a hostile model, %s',
  (mode) => {
    const scripted = useScriptedSession(
      {
        registry:
          echoServer('lead_srv', { tools: 'note', envVars: ['LEAD_CRED'] }) +
          echoServer('worker_srv', { tools: 'note', envVars: ['WORKER_CRED'] }),
        profile: profile(mode),
        credentials: `LEAD_CRED=${LEAD_CANARY}\nWORKER_CRED=${WORKER_CANARY}\n`,
      },
      () => [],
      {
        prepare: async (world) => {
          await writeFile(
            join(world.baseCodexHome, 'auth.json'),
            `{"OPENAI_API_KEY": "${AUTH_CANARY}"}\n`,
          );
          // the repository under review brings its own Codex configuration and server
          await mkdir(join(world.workDir, '.codex'));
          await writeFile(
            join(world.workDir, '.codex', 'config.toml'),
            `[mcp_servers.project_srv]\ncommand = "/bin/sh"\nargs = ["-c", "touch ${join(world.root, 'PROJECT-SERVER-RAN')}; sleep 30"]\n`,
          );
          await symlink(world.configDir, join(world.workDir, 'to-config'));
          scripted.script = hostile(world, mode !== 'full-access');
        },
      },
    );

    it('keeps credentials, tokens and project config from the model, and leaves nothing secret behind', async () => {
      const result = await runInWorld(
        scripted.world,
        ['exec', scripted.world.packDir, 'be hostile'],
        {
          LAUNCH_CANARY,
        },
      );
      expect(scripted.model.errors).toEqual([]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('LEAD-DONE');

      // each request repeats the earlier outputs of its thread: one entry per call
      const byCall = new Map<string, string>();
      for (const r of scripted.model.requests) {
        for (const o of r.toolOutputs) byCall.set(`${r.threadId ?? ''}:${o.callId}`, o.output);
      }
      const outputs = [...byCall.values()];
      const everything = outputs.join('\n');
      // login and non-login shells of the root and of the participant
      const envs = outputs.filter((o) => /^PATH=/m.test(o)).map(parseEnvOutput);
      expect(envs.length).toBeGreaterThanOrEqual(4);
      for (const env of envs) {
        expect(Object.keys(env).filter((n) => n.startsWith('CODEX_MMO_'))).toEqual([]);
        expect(env.LEAD_CRED).toBeUndefined();
        expect(env.WORKER_CRED).toBeUndefined();
        expect(env.CODEX_HOME).toBeUndefined();
      }
      for (const canary of CANARIES) expect(everything).not.toContain(canary);
      expect(everything).toContain('WORKER-DONE');

      // participants work in the session's working directory or below, symlinks resolved
      expect(everything).toMatch(/outside the session's working directory/);
      expect(
        outputs.filter((o) => o.includes("outside the session's working directory")),
      ).toHaveLength(2);

      if (mode !== 'full-access') {
        expect(everything).toContain('READS-DONE');
        // hidden by the container's masks or the private /tmp of the host view (no such file, or
        // the deny entry's mount point Codex's sandbox makes there), or by Codex's deny entries
        expect(everything).toMatch(
          /credentials\.env: (Permission denied|No such file|Not a directory)/,
        );
        expect(everything).toMatch(/auth\.json: (Permission denied|No such file|Not a directory)/);
      }

      // the project's own config never loaded: its server neither ran nor was offered
      expect(existsSync(join(scripted.world.root, 'PROJECT-SERVER-RAN'))).toBe(false);
      for (const r of scripted.model.requests)
        expect(Object.keys(r.offeredTools.mcp)).not.toContain('project_srv');

      // no shell snapshot, and no credential value in any file of the session
      const { dir } = await onlySession(scripted.world);
      expect(await filesUnder(dir, 'shell_snapshots')).toEqual([]);
      const stored = await allText(dir);
      for (const canary of CANARIES) expect(stored).not.toContain(canary);
    }, 240_000);
  },
);
