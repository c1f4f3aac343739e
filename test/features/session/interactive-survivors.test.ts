/**
 * Nothing of an interactive session outlives it, with real Codex's TUI in a pseudo-terminal:
 * `codex-mmo run` with a root holding a stdio Tool MCP server and a participant (spawned through
 * mmo_mesh) holding its own, ended by the user quitting the TUI (`/quit`), `session stop`, SIGTERM, SIGHUP
 * and `kill -9` of the supervisor. While the session runs, every process carrying its marker
 * descends from the supervisor (no detached app-server daemon) and no Codex process holds a
 * credential; after each stop, within seconds, no process carries the marker or names the session
 * (command line or working directory), the `auth.json` copies are gone, the record says how the
 * session ended and the terminal's program exits.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { SESSION_MARKER_ENV } from '../../../src/foundation/process/session-marker.js';
import { useLeadWorkerSession } from '../../support/lead-worker-session.js';
import { folderTrustAnswerer, KEYS, startTui, type Tui } from '../../support/tui.js';
import { CLI, runInWorld, running, waitFor, HeldRequests } from '../../support/world.js';

const CANARY = 'tui-survivor-canary-5f3e';
const held = new HeldRequests();

/** The lead spawns a worker (which stays at work) and then waits for the user. */
const scripted = useLeadWorkerSession('interactive', held, {
  leadCredential: CANARY,
  // homes get auth.json copies, whose removal every stop path is checked for
  providerAuth: true,
  after: () => [{ type: 'message', text: 'LEAD-WAITING' }],
});

interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly cmdline: string;
  readonly cwd: string;
  readonly environ: readonly string[];
}

async function processes(): Promise<ProcessInfo[]> {
  const out: ProcessInfo[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const pid = Number(entry);
    if (!(await running(pid))) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replaceAll(
      '\0',
      ' ',
    );
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => '');
    const environ = (await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '')).split('\0');
    out.push({ pid, ppid, cmdline, cwd, environ });
  }
  return out;
}

/** Processes of a session: its marker in the environment, or its directory named anywhere. */
async function sessionProcesses(id: string, dir: string): Promise<ProcessInfo[]> {
  const marker = `${SESSION_MARKER_ENV}=${id}`;
  return (await processes()).filter(
    (p) =>
      p.environ.includes(marker) ||
      p.cmdline.includes(dir) ||
      p.cwd.includes(dir) ||
      p.cmdline.includes(scripted.world.root) ||
      p.cwd.includes(scripted.world.root),
  );
}

function descendsFrom(all: readonly ProcessInfo[], pid: number, ancestor: number): boolean {
  const byPid = new Map(all.map((p) => [p.pid, p]));
  let current = byPid.get(pid);
  for (let depth = 0; current !== undefined && depth < 64; depth++) {
    if (current.ppid === ancestor) return true;
    current = byPid.get(current.ppid);
  }
  return false;
}

async function sessionIds(): Promise<string[]> {
  return (await readdir(join(scripted.world.stateDir, 'sessions')).catch(() => [])).sort();
}

async function readRecord(dir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dir, 'session.json'), 'utf8')) as Record<string, unknown>;
}

interface Running {
  readonly tui: Tui;
  readonly id: string;
  readonly dir: string;
  readonly supervisor: number;
  /** Every process of the session seen while it ran. */
  readonly seen: readonly ProcessInfo[];
}

/** Starts `codex-mmo run` in a terminal and waits until the lead waits and its worker works. */
async function startSession(): Promise<Running> {
  const before = await sessionIds();
  const workersBefore = scripted.model.requests.filter((r) =>
    r.developerTexts.some((t) => t.includes('ROLE-WORKER')),
  ).length;
  const tui = startTui(
    process.execPath,
    [CLI, 'run', scripted.world.packDir, ...scripted.world.dirArgs, '--', 'SPAWN then wait'],
    { cwd: scripted.world.workDir, env: scripted.world.env },
  );
  // 0.171 asks whether to open the untrusted folder; Enter takes the highlighted "Open restricted"
  const requestsBefore = scripted.model.requests.length;
  const answerTrust = folderTrustAnswerer(
    tui,
    () => scripted.model.requests.length > requestsBefore,
  );
  await waitFor(() => {
    answerTrust();
    const text = tui.text();
    return (
      scripted.model.requests.filter((r) => r.developerTexts.some((t) => t.includes('ROLE-WORKER')))
        .length > workersBefore && /LEAD-WAITING/.test(text)
    );
  }, 300_000).catch((error: unknown) => {
    throw new Error(`${String(error)}; the screen:\n${tui.text().slice(-3000)}`);
  });
  const id = (await sessionIds()).find((s) => !before.includes(s)) ?? '';
  const dir = join(scripted.world.stateDir, 'sessions', id);
  const supervisor = Number((await readRecord(dir)).pid);
  // the worker's Tool MCP server starts with its app-server; give it the time to show up
  let seen: ProcessInfo[] = [];
  await waitFor(async () => {
    seen = await sessionProcesses(id, dir);
    const marker = `${SESSION_MARKER_ENV}=${id}`;
    return (
      // the servers themselves, not their containers' unshare and init
      seen.filter(
        (p) =>
          p.environ.includes(marker) &&
          p.cmdline.includes('echo-server') &&
          !p.cmdline.includes('codex-mmo-container'),
      ).length === 2
    );
  }, 30_000);
  return { tui, id, dir, supervisor, seen };
}

/** A test that failed half-way leaves its session running: end all of it before the next. */
async function killEverything(): Promise<void> {
  const ids = await sessionIds();
  for (const p of await processes()) {
    const ours =
      p.cmdline.includes(scripted.world.root) ||
      p.cwd.includes(scripted.world.root) ||
      ids.some((id) => p.environ.includes(`${SESSION_MARKER_ENV}=${id}`));
    if (ours) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
}

/** What every stop path must leave: nothing of the session, no auth copy, an exited terminal. */
async function expectNothingLeft(session: Running): Promise<number | null> {
  const exited = await Promise.race([
    session.tui.exited,
    new Promise<'still running'>((r) => {
      setTimeout(() => {
        r('still running');
      }, 20_000);
    }),
  ]);
  expect(exited, session.tui.text().slice(-2000)).not.toBe('still running');
  let left: ProcessInfo[] = [];
  await waitFor(async () => {
    left = await sessionProcesses(session.id, session.dir);
    return left.length === 0;
  }, 20_000).catch(() => undefined);
  expect(left.map((p) => `${p.pid} ${p.cmdline}`)).toEqual([]);
  for (const p of session.seen) expect(await running(p.pid), p.cmdline).toBe(false);
  await waitFor(async () => {
    const homes = await readdir(join(session.dir, 'homes')).catch(() => [] as string[]);
    return homes.every((h) => !existsSync(join(session.dir, 'homes', h, 'auth.json')));
  }, 10_000);
  expect(existsSync(join(session.dir, 'mesh.sock'))).toBe(false);
  return exited === 'still running' ? null : exited;
}

async function listedStatus(id: string): Promise<string | undefined> {
  const listed = await runInWorld(scripted.world, ['session', 'list', '--json']);
  const sessions = (JSON.parse(listed.stdout) as { sessions: { id: string; status: string }[] })
    .sessions;
  return sessions.find((s) => s.id === id)?.status;
}

afterEach(async () => {
  await killEverything();
  // a worker's model request waits for ever: answer those of the ended session
  held.releaseAll();
});

describe('an interactive session leaves nothing behind', () => {
  it('is owned by its supervisor, and ends with nothing left when the user quits (/quit)', async () => {
    const session = await startSession();
    const all = await processes();
    const marker = `${SESSION_MARKER_ENV}=${session.id}`;
    const marked = session.seen.filter((p) => p.environ.includes(marker));
    // the TUI, two Tool MCP servers, the worker's app-server; mmo_mesh and the servers' routes
    // are served in the supervisor, with no process of their own
    expect(marked.length).toBeGreaterThanOrEqual(4);
    expect(marked.some((p) => p.cmdline.includes('mesh serve'))).toBe(false);
    expect(marked.some((p) => p.cmdline.includes('gateway connect'))).toBe(false);
    expect(marked.some((p) => p.cmdline.includes('app-server'))).toBe(true);
    // no detached app-server daemon: every process of the session descends from its supervisor
    for (const p of session.seen) {
      if (p.pid === session.supervisor || p.pid === session.tui.child.pid) continue;
      expect(descendsFrom(all, p.pid, session.supervisor), p.cmdline).toBe(true);
    }
    expect(session.seen.filter((p) => p.cmdline.includes('app-server-daemon'))).toEqual([]);
    // the credential lives in its server's process only: no Codex process, no relay holds it
    const holders = session.seen.filter((p) => p.environ.some((e) => e.includes(CANARY)));
    // besides the server, only its own container's unshare and init (same environment)
    const servers = holders.filter((p) => !p.cmdline.includes('codex-mmo-container'));
    expect(servers.length).toBe(1);
    expect(servers[0]?.cmdline).toContain('echo-server');
    for (const p of holders) expect(p.cmdline, p.cmdline).toContain('echo-server');
    // measured on both versions: `/quit`, a single Ctrl-C or Ctrl-D at an idle prompt quit the TUI
    // (a second Ctrl-C would reach codex-mmo itself while Codex shuts down)
    session.tui.type('/quit');
    await new Promise((r) => setTimeout(r, 700));
    session.tui.type(KEYS.enter);
    expect(await expectNothingLeft(session)).toBe(0);
    const record = await readRecord(session.dir);
    expect(record.status).toBe('ended');
    expect(record.exit_code).toBe(0);
    // Codex's own `codex resume` hint is answered with the one that applies
    const text = session.tui.text().replace(/\s+/g, ' ');
    expect(text).toContain(
      `session ${session.id} is over (the \`codex resume\` line above does not apply`,
    );
    expect(text).toContain(`continue it with 'codex-mmo session resume ${session.id}'`);
  }, 420_000);

  it('ends everything on `session stop` from another process, recorded as stopped', async () => {
    const session = await startSession();
    const stopped = await runInWorld(scripted.world, ['session', 'stop', session.id, '--json']);
    expect(stopped.code, stopped.stderr).toBe(0);
    const code = await expectNothingLeft(session);
    expect(code).not.toBe(0);
    const record = await readRecord(session.dir);
    expect(record.status).toBe('stopped');
    expect(record.exit_code).toBe(code);
  }, 420_000);

  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it(`ends everything on ${signal} to the supervisor, recorded as stopped`, async () => {
      const session = await startSession();
      process.kill(session.supervisor, signal);
      const code = await expectNothingLeft(session);
      expect(code).not.toBe(0);
      const record = await readRecord(session.dir);
      expect(record.status).toBe('stopped');
      expect(record.exit_code).toBe(code);
    }, 420_000);
  }

  it('ends everything after kill -9 of the supervisor; the session no longer shows as running', async () => {
    const session = await startSession();
    process.kill(session.supervisor, 'SIGKILL');
    const code = await expectNothingLeft(session);
    expect(code).not.toBe(0);
    // the supervisor could not record the end: the session shows as failed, never as running
    expect(await listedStatus(session.id)).toBe('failed');
  }, 420_000);
});
