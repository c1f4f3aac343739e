/**
 * Containment, with real Codex: a Tool MCP server that starts a `setsid` child with an empty
 * environment (no session marker, its own session, re-parented when its parent goes) leaves
 * nothing behind — after a normal end, after `kill -9` of the supervisor, and after `kill -9` of
 * the watchdog and then the supervisor, when a later `session list` also clears the sockets and
 * `auth.json` copies the session left.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import {
  ECHO_SERVER,
  HeldRequests,
  makeWorld,
  profileToml,
  runInWorld,
  startInWorld,
  waitFor,
  type World,
} from '../../support/world.js';

const held = new HeldRequests();

const fixture = useScriptedModel(
  (request) =>
    request.userTexts.some((t) => t.includes('hold'))
      ? held.hold()
      : [{ type: 'message', text: 'DONE' }],
  {
    release: () => {
      held.releaseAll();
    },
  },
);

/** A stdio server that first starts `sleep <tag>` detached, in a new session, environment cleared. */
function detachingServer(tag: string): string {
  const script = `setsid env -i /bin/sh -c 'exec sleep ${tag}' </dev/null >/dev/null 2>&1 & exec ${JSON.stringify(process.execPath)} ${JSON.stringify(ECHO_SERVER)} --tools note`;
  return `
[tool_mcp_servers.spawner]
transport = "stdio"
command = "/bin/sh"
args = ${JSON.stringify(['-c', script])}
enabled_tools = ["note"]
default_tools_approval_mode = "approve"
`;
}

/** Pids whose command line is exactly `sleep <tag>`. */
async function sleepers(tag: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === `sleep\0${tag}\0`) found.push(Number(entry));
  }
  return found;
}

async function worldFor(tag: string): Promise<World> {
  return makeWorld({
    registry: detachingServer(tag),
    profile: profileToml('contained', 'lead', {
      lead: { grants: { spawner: { required: true } } },
    }),
    modelUrl: fixture.model.baseUrl,
    // homes get auth.json copies, whose removal is checked for
    providerAuth: true,
  });
}

async function onlySessionDir(world: World): Promise<{ id: string; dir: string }> {
  const [id = ''] = await readdir(join(world.stateDir, 'sessions'));
  return { id, dir: join(world.stateDir, 'sessions', id) };
}

/** Starts a held session and waits for its detached sleeper; returns its pid. */
async function heldSession(
  world: World,
  tag: string,
): Promise<{ run: ReturnType<typeof startInWorld>; sleeper: number }> {
  const before = fixture.model.requests.length;
  const run = startInWorld(world, ['exec', world.packDir, `hold ${tag}`]);
  await waitFor(() => fixture.model.requests.length > before, 90_000);
  await waitFor(async () => (await sleepers(tag)).length === 1, 10_000);
  const [sleeper = 0] = await sleepers(tag);
  // it lives in a PID namespace of its own, not in ours
  expect(await readlink(`/proc/${sleeper}/ns/pid`)).not.toBe(await readlink('/proc/self/ns/pid'));
  return { run, sleeper };
}

describe('a Tool MCP server with a detached child', () => {
  it('leaves nothing running after a normal end', async () => {
    const tag = '4242.101';
    const world = await worldFor(tag);
    const result = await runInWorld(world, ['exec', world.packDir, 'finish']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('DONE');
    expect(await sleepers(tag)).toEqual([]);
    const { dir } = await onlySessionDir(world);
    for (const name of ['mesh.sock', 'gateway.sock', 'approvals.sock', 'approvals.key']) {
      expect(existsSync(join(dir, name)), name).toBe(false);
    }
  }, 150_000);

  it('leaves nothing running after kill -9 of the supervisor', async () => {
    const tag = '4242.102';
    const world = await worldFor(tag);
    const { run } = await heldSession(world, tag);
    run.kill('SIGKILL');
    await run.done;
    await waitFor(async () => (await sleepers(tag)).length === 0, 15_000);
    const { dir } = await onlySessionDir(world);
    // the watchdog removes the sockets and the auth.json copy
    await waitFor(
      () =>
        [
          'mesh.sock',
          'gateway.sock',
          'approvals.sock',
          'approvals.key',
          'homes/lead/auth.json',
        ].every((name) => !existsSync(join(dir, name))),
      15_000,
    );
  }, 150_000);

  it('leaves nothing running after kill -9 of the watchdog and the supervisor; a later command clears the rest', async () => {
    const tag = '4242.103';
    const world = await worldFor(tag);
    const { run } = await heldSession(world, tag);
    const { id, dir } = await onlySessionDir(world);
    const watchdogs: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes('codex-mmo-watchdog') && cmdline.includes(id)) watchdogs.push(+entry);
    }
    expect(watchdogs.length).toBe(1);
    process.kill(watchdogs[0] ?? 0, 'SIGKILL');
    run.kill('SIGKILL');
    await run.done;
    // the containers end on their own: their parent-death signals killed them with the supervisor
    await waitFor(async () => (await sleepers(tag)).length === 0, 15_000);
    expect(existsSync(join(dir, 'homes', 'lead', 'auth.json'))).toBe(true);
    const listed = await runInWorld(world, ['session', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    for (const name of [
      'mesh.sock',
      'gateway.sock',
      'approvals.sock',
      'approvals.key',
      'homes/lead/auth.json',
    ]) {
      expect(existsSync(join(dir, name)), name).toBe(false);
    }
    const sessions = (JSON.parse(listed.stdout) as { sessions: { id: string; status: string }[] })
      .sessions;
    expect(sessions.find((s) => s.id === id)?.status).toBe('failed');
  }, 150_000);
});
