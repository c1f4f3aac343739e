/**
 * What a team costs in processes, with real Codex: while a lead and the worker it spawned are
 * both at work, each granted a required server of its own, the session's processes are the
 * supervisor, the two Codex processes, their two servers, the container inits and the bwrap of
 * each Codex process's host view — no relay per
 * server, no `mmo_mesh` process, no Node launcher above Codex. Both homes name the gateway's one
 * loopback URL for their Tool MCP servers (and the lead's for `mmo_mesh`), with token variables
 * only.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { startWorkingTeam, useLeadWorkerSession } from '../../support/lead-worker-session.js';
import { HeldRequests, type RunningCli } from '../../support/world.js';

const held = new HeldRequests();
const scripted = useLeadWorkerSession('lean', held);
let supervisor: RunningCli | undefined;

afterAll(async () => {
  held.releaseAll();
  await supervisor?.done;
});

interface Census {
  readonly pid: string;
  readonly cmdline: string;
}

/** Every process whose environment or command line names the state dir or carries the marker. */
async function census(stateDir: string, marker: string): Promise<Census[]> {
  const found: Census[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replace(
      /\0/g,
      ' ',
    );
    if (environ.includes(stateDir) || cmdline.includes(stateDir) || environ.includes(marker)) {
      found.push({ pid, cmdline });
    }
  }
  return found;
}

describe('a lean team', () => {
  it('runs no process per server, no mmo_mesh process and no launcher above Codex', async () => {
    supervisor = await startWorkingTeam(scripted);
    const [id = ''] = await readdir(join(scripted.world.stateDir, 'sessions'));
    const running = await census(scripted.world.stateDir, `CODEX_MMO_SESSION=${id}\0`);
    const kinds = running.map(({ cmdline }) =>
      cmdline.includes('dist/cli/main.js exec')
        ? 'supervisor'
        : cmdline.includes('gateway connect')
          ? 'relay'
          : cmdline.includes('mesh serve')
            ? 'mesh'
            : cmdline.includes('echo-server')
              ? 'server'
              : /\bcodex\.js\b/.test(cmdline)
                ? 'launcher'
                : /^\S*\/codex (exec|app-server)/.test(cmdline)
                  ? 'codex'
                  : /^\S*\/bwrap /.test(cmdline)
                    ? 'view'
                    : 'other',
    );
    const count = (kind: string): number => kinds.filter((k) => k === kind).length;
    const shown = running.map((p, i) => `${kinds[i] ?? ''} ${p.cmdline.slice(0, 160)}`).join('\n');
    expect(count('supervisor'), shown).toBe(1);
    expect(count('relay'), shown).toBe(0);
    expect(count('mesh'), shown).toBe(0);
    expect(count('launcher'), shown).toBe(0);
    expect(count('codex'), shown).toBe(2);
    // each Codex process in its host view, built by one bwrap above it
    expect(count('view'), shown).toBe(2);
    expect(count('server'), shown).toBe(2);

    const homes = join(scripted.world.stateDir, 'sessions', id, 'homes');
    const lead = await readFile(join(homes, 'lead', 'config.toml'), 'utf8');
    const worker = await readFile(join(homes, 'worker-1', 'config.toml'), 'utf8');
    const url = /^url = "(http:\/\/127\.0\.0\.1:\d+\/mcp)"$/m.exec(lead)?.[1];
    expect(url, lead).toBeDefined();
    for (const home of [lead, worker]) {
      expect(home).toContain(`url = "${url ?? ''}"`);
      expect(home).toContain('bearer_token_env_var = "CODEX_MMO_GATEWAY_TOKEN_1"');
      expect(home).not.toMatch(/^command = /m);
    }
    // the lead, which spawns, reaches mmo_mesh at the same URL with its mesh credential
    expect(lead).toMatch(
      /\[mcp_servers\.mmo_mesh\][^[]*bearer_token_env_var = "CODEX_MMO_MESH_TOKEN"/,
    );
  }, 120_000);
});
