/**
 * The host view against a hostile model (docs/design.md §16), with real `codex exec`, network on
 * and off: the operator's daemons run — a tmux server, ssh-agent and a D-Bus session bus where
 * installed, and always a listener on a path socket in `/tmp` and one in the abstract namespace —
 * and the root and a participant try each of them from their shells, then list `/tmp`,
 * `/dev/shm` and `/run/user`. No daemon is reached, nothing runs outside the sandbox, and the
 * private directories show none of the host's entries.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, profileToml, runInWorld } from '../../support/world.js';

const run = promisify(execFile);

function installed(command: string): boolean {
  return spawnSync('/bin/sh', ['-c', `command -v ${command}`]).status === 0;
}

function shell(cmd: string): ScriptedItem {
  return { type: 'function_call', name: 'exec_command', arguments: { cmd, login: false } };
}

function mesh(name: string, args: Record<string, unknown>): ScriptedItem {
  return { type: 'function_call', namespace: 'mcp__mmo_mesh', name, arguments: args };
}

/** The operator's daemons and listeners, each with the shell line that tries it. */
interface Daemons {
  readonly tag: string;
  readonly dir: string;
  /** Connections the test's own listeners saw. */
  readonly seen: string[];
  /** Files a reached daemon would make outside the sandbox. */
  readonly escapes: string[];
  readonly attacks: string[];
  readonly hostEntries: string[];
  stop(): Promise<void>;
}

async function listen(server: Server, at: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at, resolve);
  });
}

async function startDaemons(): Promise<Daemons> {
  const tag = randomBytes(4).toString('hex');
  const dir = await mkdtemp(join(tmpdir(), `mmo-host-${tag}-`));
  const seen: string[] = [];
  const escapes: string[] = [];
  const attacks: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  const children: ChildProcess[] = [];
  const node = process.execPath;

  // a listener on a path in /tmp and one in the abstract namespace, always
  const pathSock = join(dir, 'daemon.sock');
  const abstract = `codex-mmo-host-${tag}`;
  for (const [name, at] of [
    ['path', pathSock],
    ['abstract', `\0${abstract}`],
  ] as const) {
    const server = createServer((socket) => {
      seen.push(name);
      socket.destroy();
    });
    await listen(server, at);
    stops.push(
      () =>
        new Promise((resolve) =>
          server.close(() => {
            resolve();
          }),
        ),
    );
  }
  const connect = (target: string): string =>
    `${node} -e 'const s=require("net").connect(${target});s.on("connect",()=>{console.log("CONNECTED");s.end()});s.on("error",e=>console.log("REFUSED",e.code))'`;
  attacks.push(connect(JSON.stringify(pathSock)), connect(`"\\0${abstract}"`));

  if (installed('tmux')) {
    const escape = join(dir, 'tmux-ran');
    escapes.push(escape);
    await run('tmux', ['-L', `mmo-${tag}`, 'new-session', '-d', 'sleep 600']);
    stops.push(async () => {
      await run('tmux', ['-L', `mmo-${tag}`, 'kill-server']).catch(() => undefined);
    });
    attacks.push(`tmux -L mmo-${tag} new-window -d 'touch ${escape}'; echo tmux=$?`);
  }
  if (installed('ssh-agent') && installed('ssh-add')) {
    const agent = await run('ssh-agent', ['-s']);
    const sock = /SSH_AUTH_SOCK=([^;]+);/.exec(agent.stdout)?.[1] ?? '';
    const pid = Number(/SSH_AGENT_PID=(\d+);/.exec(agent.stdout)?.[1]);
    stops.push(async () => {
      if (pid > 0) process.kill(pid, 'SIGTERM');
      await Promise.resolve();
    });
    attacks.push(`SSH_AUTH_SOCK=${sock} ssh-add -l; echo ssh-add=$?`);
  }
  if (installed('dbus-daemon') && installed('dbus-send')) {
    const bus = spawn(
      'dbus-daemon',
      ['--session', '--nofork', '--print-address', `--address=unix:abstract=/tmp/mmo-bus-${tag}`],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    children.push(bus);
    const address = await new Promise<string>((resolve) => {
      bus.stdout.setEncoding('utf8');
      bus.stdout.once('data', (line: string) => {
        resolve(line.trim());
      });
    });
    attacks.push(
      `dbus-send --bus='${address}' --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames; echo dbus=$?`,
    );
  }
  const hostEntries = [`mmo-host-${tag}-`, `mmo-${tag}`, 'ssh-'];
  return {
    tag,
    dir,
    seen,
    escapes,
    attacks,
    hostEntries,
    stop: async () => {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(stops.map((s) => s()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function isWorker(request: ModelRequest): boolean {
  return request.developerTexts.some((t) => t.includes('ROLE-WORKER'));
}

function hostile(daemons: Daemons): (request: ModelRequest) => ScriptedItem[] {
  const look = 'ls -a /tmp /tmp/tmux-* /dev/shm /run/user 2>&1; echo LOOK-DONE';
  const steps = [...daemons.attacks.map(shell), shell(look)];
  return (request) => {
    const step = request.toolOutputs.length;
    if (isWorker(request)) {
      return step < steps.length
        ? [steps[step] as ScriptedItem]
        : [{ type: 'message', text: 'WORKER-DONE' }];
    }
    const lead = [
      ...steps,
      mesh('spawn_participant', { role: 'worker', task: 'WORK' }),
      mesh('wait_participant', { participant: 'worker-1' }),
    ];
    return step < lead.length
      ? [lead[step] as ScriptedItem]
      : [{ type: 'message', text: 'LEAD-DONE' }];
  };
}

function profile(network: boolean): string {
  return profileToml('hosts', 'lead', {
    lead: { spawn: ['worker'], control: ['worker'], grants: { srv: {} } },
    worker: { grants: { srv: {} } },
  }).replace(
    /(\[agents\.(lead|worker)\]\n)/g,
    `$1permissions = "workspace-write"\nnetwork_access = ${String(network)}\n`,
  );
}

describe.each([true, false])('the operator’s daemons, network_access = %s', (network) => {
  let daemons: Daemons | undefined;
  beforeAll(async () => {
    daemons = await startDaemons();
    scripted.script = hostile(daemons);
  });
  afterAll(async () => {
    await daemons?.stop();
  });
  const scripted = useScriptedSession({
    registry: echoServer('srv', { tools: 'note' }),
    profile: profile(network),
    credentials: '',
  });

  it('reaches none of them from the root or a participant', async () => {
    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'go']);
    expect(scripted.model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    const found = daemons as Daemons;
    const outputs = new Map<string, string>();
    for (const r of scripted.model.requests) {
      for (const o of r.toolOutputs) outputs.set(`${r.threadId ?? ''}:${o.callId}`, o.output);
    }
    const all = [...outputs.values()].join('\n');
    expect(all).toContain('WORKER-DONE');
    expect(all.match(/LOOK-DONE/g)).toHaveLength(2);
    expect(all).not.toContain('CONNECTED');
    expect(all.match(/REFUSED EPERM/g)?.length).toBe(4);
    expect(found.seen).toEqual([]);
    for (const escape of found.escapes) expect(existsSync(escape)).toBe(false);
    if (installed('tmux')) expect(all).toMatch(/tmux=1/);
    if (installed('ssh-add')) expect(all).toMatch(/ssh-add=2/);
    if (installed('dbus-send')) expect(all).toMatch(/dbus=1/);
    // the private /tmp shows neither the daemons' directories nor the test's
    const looks = [...outputs.values()].filter((o) => o.includes('LOOK-DONE')).join('\n');
    for (const entry of found.hostEntries) expect(looks).not.toContain(entry);
  }, 240_000);
});
