/**
 * Session lifecycle with real Codex: a registry edited while a session runs changes nothing in
 * that session (its rendered home and snapshot stay as they were) while the next session gets a
 * new snapshot; `session stop` ends the running session, records it as stopped, and leaves none of
 * its processes behind; `session list`/`show` report both sessions.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startScriptedModel, type ScriptedModel } from '../../src/codex/scripted-model.js';
import { isAlive } from '../../src/session/process-control.js';
import {
  ECHO_SERVER,
  makeWorld,
  requireBuild,
  runCliProcess,
  startCli,
  type World,
} from './world.js';

let model: ScriptedModel;
let world: World;
const releases: (() => void)[] = [];

function registry(tools: string): string {
  return `schema_version = 8
[tool_mcp_servers.tools]
transport = "stdio"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(ECHO_SERVER)}, "--tools", "${tools}"]
enabled_tools = [${tools
    .split(',')
    .map((t) => JSON.stringify(t))
    .join(', ')}]
default_tools_approval_mode = "approve"
`;
}

const PROFILE = `
name = "lifecycle"
root = "lead"

[agents.lead]
description = "lead"
instructions = "ROLE-LEAD"
spawn = ["worker"]
control = ["worker"]

[agents.lead.tool_mcp_servers.tools]

[agents.worker]
description = "worker"
instructions = "ROLE-WORKER"
`;

async function waitFor(condition: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Summary {
  id: string;
  status: string;
  snapshot: string;
}

async function sessions(): Promise<Summary[]> {
  const listed = await runCliProcess(
    ['session', 'list', '--json', ...world.dirArgs],
    world.env,
    world.workDir,
  );
  return (JSON.parse(listed.stdout) as { sessions: Summary[] }).sessions;
}

beforeAll(async () => {
  requireBuild();
  model = await startScriptedModel((request) => {
    if (request.userTexts.some((t) => t.includes('HANG'))) {
      return new Promise((resolve) =>
        releases.push(() => {
          resolve([{ type: 'message', text: 'late' }]);
        }),
      );
    }
    return [
      { type: 'message', text: `QUICK-DONE ${Object.keys(request.offeredTools.mcp).join(',')}` },
    ];
  });
  world = await makeWorld({
    registry: registry('note').replace('schema_version = 8\n', ''),
    profile: PROFILE,
    modelUrl: model.baseUrl,
  });
});

afterAll(async () => {
  for (const release of releases) release();
  await model.close();
});

describe('sessions over time', () => {
  it('keeps a running session on its snapshot, and stops it on request', async () => {
    const first = startCli(
      ['exec', world.packDir, 'HANG here', ...world.dirArgs],
      world.env,
      world.workDir,
    );
    await waitFor(
      () => model.requests.some((r) => r.userTexts.some((t) => t.includes('HANG'))),
      60_000,
    );
    const [running] = await sessions();
    expect(running?.status).toBe('running');
    const firstDir = join(world.stateDir, 'sessions', running?.id ?? '');
    const configBefore = await readFile(join(firstDir, 'homes', 'lead', 'config.toml'), 'utf8');
    expect(configBefore).not.toContain('"extra"');

    // the operator edits the registry while the session runs
    await writeFile(join(world.configDir, 'tool-mcp.d', '10-test.toml'), registry('note,extra'));
    const second = await runCliProcess(
      ['exec', world.packDir, 'QUICK', ...world.dirArgs],
      world.env,
      world.workDir,
    );
    expect(second.code, second.stderr).toBe(0);
    const both = await sessions();
    expect(both).toHaveLength(2);
    const [a, b] = both;
    expect(a?.id).toBe(running?.id);
    expect(b?.status).toBe('ended');
    expect(b?.snapshot).not.toBe(a?.snapshot);
    const secondConfig = await readFile(
      join(world.stateDir, 'sessions', b?.id ?? '', 'homes', 'lead', 'config.toml'),
      'utf8',
    );
    expect(secondConfig).toContain('"extra"');
    // nothing of the running session changed
    expect(await readFile(join(firstDir, 'homes', 'lead', 'config.toml'), 'utf8')).toBe(
      configBefore,
    );
    expect(a?.status).toBe('running');
    const shownSnapshot = await runCliProcess(
      ['snapshot', 'show', a?.snapshot ?? '', '--json', ...world.dirArgs],
      world.env,
      world.workDir,
    );
    expect(shownSnapshot.code, shownSnapshot.stderr).toBe(0);

    // stop it
    const record = JSON.parse(await readFile(join(firstDir, 'session.json'), 'utf8')) as {
      pid: number;
      processes: { pid?: number }[];
    };
    const codexPid = record.processes[0]?.pid;
    expect(codexPid).toBeDefined();
    const stopped = await runCliProcess(
      ['session', 'stop', a?.id.slice(0, 22) ?? '', '--json', ...world.dirArgs],
      world.env,
      world.workDir,
    );
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({
      session: a?.id,
      status: 'stopped',
      stopped: true,
      forced: false,
    });
    const ended = await first.done;
    // Codex ends gracefully on SIGTERM; its exit code is passed through as it is
    expect(ended.signal).toBeNull();
    expect(ended.stderr).toContain(`session ${a?.id ?? ''} was stopped`);
    expect(isAlive(record.pid)).toBe(false);
    expect(isAlive(codexPid ?? 0)).toBe(false);

    const after = await sessions();
    expect(after.map((s) => s.status)).toEqual(['stopped', 'ended']);
    const again = await runCliProcess(
      ['session', 'stop', a?.id ?? '', ...world.dirArgs],
      world.env,
      world.workDir,
    );
    expect(again.stdout).toContain('has already been stopped');
    const shown = await runCliProcess(
      ['session', 'show', a?.id ?? '', ...world.dirArgs],
      world.env,
      world.workDir,
    );
    expect(shown.stdout).toMatch(/status:\s+stopped/);
    expect(shown.stdout).toContain('root');
    // the session's socket is gone with it
    expect(await readdir(firstDir)).not.toContain('mesh.sock');
  }, 90_000);
});
