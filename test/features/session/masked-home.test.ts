/**
 * A process shielded by its container's masks (docs/design.md §9), with real `codex exec`: its
 * shell reads its own home, which holds none of the tokens in its Codex process's environment (a
 * look at every file of the home while Codex runs, state databases and logs included, and what
 * the shell can print of it), and no `auth.json` copy, and cannot write there; the model wire
 * path in its `config.toml` alone reaches nothing; the operator's files and other sessions stay
 * out of sight. A process that runs a native role, or whose working directory holds the state dir
 * (its home would be writable to its shell), keeps Codex's deny entries: its own home is
 * unreadable to its shell.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import { SESSION_MARKER_ENV } from '../../../src/foundation/process/session-marker.js';
import { toolOutputText } from '../../support/scripted-model-fixture.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  echoServer,
  profileToml,
  shellCall,
  startCli,
  withDirArgs,
  type World,
} from '../../support/world.js';

const AUTH_CANARY = 'masked-auth-canary-m4s9k1';
const CRED_CANARY = 'masked-cred-canary-q1w2e3';

/** The `CODEX_MMO_*` token values in the environment of every Codex process whose home is under `dir`. */
async function tokensOfCodex(dir: string): Promise<{ homes: string[]; values: string[] }> {
  const homes = new Set<string>();
  const values = new Set<string>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
    const vars = environ.split('\0');
    const home = vars.find((v) => v.startsWith(`CODEX_HOME=${dir}`));
    if (home === undefined) continue;
    homes.add(home.slice('CODEX_HOME='.length));
    for (const v of vars) {
      const [name, ...rest] = v.split('=');
      // every codex-mmo variable but the session marker, which names the session (no secret)
      if (name?.startsWith('CODEX_MMO_') === true && name !== SESSION_MARKER_ENV) {
        values.add(rest.join('='));
      }
    }
  }
  return { homes: [...homes], values: [...values] };
}

async function filesText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries
      .filter((e) => e.isFile())
      .map((e) => readFile(join(e.parentPath, e.name), 'latin1').catch(() => '')),
  );
  return texts.join('\n');
}

function profile(natives: boolean): string {
  return profileToml('masked', 'lead', {
    lead: {
      spawn: ['worker'],
      grants: { srv: {} },
      ...(natives ? { natives: ['helper'] } : {}),
    },
    worker: { grants: { srv: {} } },
    ...(natives ? { helper: { grants: { srv: {} } } } : {}),
  }).replace('[agents.lead]\n', '[agents.lead]\npermissions = "workspace-write"\n');
}

interface Seen {
  homes: string[];
  values: string[];
  homeText: string;
  authCopy: boolean;
  wireStatus: number;
}

function lookAround(world: World, seen: Seen) {
  return async (request: { toolOutputs: readonly unknown[] }) => {
    if (request.toolOutputs.length > 0) return [{ type: 'message' as const, text: 'LEAD-DONE' }];
    // while Codex runs: its tokens, every file of its home, and the wire reached by path alone
    const found = await tokensOfCodex(world.stateDir);
    seen.homes = found.homes;
    seen.values = found.values;
    const home = found.homes[0] ?? '/nonexistent';
    seen.homeText = await filesText(home);
    seen.authCopy = existsSync(join(home, 'auth.json'));
    const config = parse(await readFile(join(home, 'config.toml'), 'utf8')) as {
      model_provider?: string;
      model_providers?: Record<string, { base_url?: string }>;
    };
    const url = config.model_providers?.[config.model_provider ?? '']?.base_url ?? '';
    const answer = await fetch(`${url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', input: 'hi' }),
    }).catch(() => undefined);
    seen.wireStatus = answer?.status ?? 0;
    return [
      shellCall(
        `cat ${join(home, 'config.toml')} && echo OWN-CONFIG-READ; ` +
          `touch ${join(home, 'planted')} && echo OWN-HOME-WRITTEN; ` +
          // before the home's files, whose size Codex may cut from the middle of the output
          `cat ${join(world.configDir, 'credentials.env')} ${join(world.baseCodexHome, 'auth.json')}; ` +
          `find ${home} -type f -exec cat {} + ; ` +
          `ls ${join(world.stateDir, 'sessions')}; echo READS-DONE`,
      ),
    ];
  };
}

type Case = 'masks' | 'native role' | 'cwd holding the state dir';

describe.each<{ case: Case }>([
  { case: 'masks' },
  { case: 'native role' },
  { case: 'cwd holding the state dir' },
])('a session process shielded by its container, case $case', ({ case: which }) => {
  const seen: Seen = { homes: [], values: [], homeText: '', authCopy: true, wireStatus: 0 };
  const scripted = useScriptedSession(
    {
      registry: echoServer('srv', { tools: 'note' }),
      profile: profile(which === 'native role'),
      credentials: `UNUSED_CRED=${CRED_CANARY}\n`,
      // the system temporary directory is writable to workspace-write shells: a state dir there
      // keeps the deny entries
      outsideTmp: true,
    },
    () => [],
    {
      prepare: async (world) => {
        await writeFile(
          join(world.baseCodexHome, 'auth.json'),
          `{"OPENAI_API_KEY": "${AUTH_CANARY}"}\n`,
        );
        scripted.script = lookAround(world, seen);
      },
    },
  );

  it('keeps every token out of what its shell can read or write', async () => {
    const { model, world } = scripted;
    const cwd = which === 'cwd holding the state dir' ? world.root : world.workDir;
    const result = await startCli(
      withDirArgs(world, ['exec', world.packDir, 'look around']),
      world.env,
      cwd,
    ).done;
    expect(model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');

    // the wire, gateway and mesh tokens of the Codex process, in no file of its home
    expect(seen.homes).toHaveLength(1);
    expect(seen.values.length).toBeGreaterThanOrEqual(3);
    expect(seen.homeText).toContain('[mcp_servers.srv]');
    for (const value of seen.values) expect(seen.homeText).not.toContain(value);
    // no auth.json copy: the provider is a custom one that needs none
    expect(seen.authCopy).toBe(false);
    // the wire's path, which the config names, is refused without the process's token
    expect(seen.wireStatus).toBe(404);

    const outputs = toolOutputText(model);
    expect(outputs).toContain('READS-DONE');
    for (const value of seen.values) expect(outputs).not.toContain(value);
    expect(outputs).not.toContain(AUTH_CANARY);
    expect(outputs).not.toContain(CRED_CANARY);
    // its own home is never writable to its shell
    expect(outputs).not.toContain('OWN-HOME-WRITTEN');
    expect(existsSync(join(seen.homes[0] ?? '/nonexistent', 'planted'))).toBe(false);
    if (which === 'masks') {
      expect(outputs).toContain('OWN-CONFIG-READ');
      expect(outputs).toMatch(/credentials\.env: No such file or directory/);
    } else {
      expect(outputs).not.toContain('OWN-CONFIG-READ');
      expect(outputs).toMatch(/config\.toml: Permission denied/);
      expect(outputs).toMatch(/credentials\.env: Permission denied/);
    }
  }, 240_000);
});
