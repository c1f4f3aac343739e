/**
 * `spawnContained`: what a command starts (`setsid`, no environment, ignoring SIGTERM) ends with
 * it, when the container is ended or killed, and at once on `kill -9` of the supervisor (root, with
 * and without a user namespace, and an unprivileged user); forwarded signals reach a `setsid`
 * grandchild; the command keeps its status, environment, group, input and signal dispositions.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { readableCopy } from '../../support/readable-copy.js';

import {
  spawnContained,
  type ContainedProcess,
} from '../../../src/foundation/process/contained-spawn.js';
import {
  DEFAULT_CONTAINMENT_TOOLS,
  containment,
  detectContainment,
  detectContainmentAsync,
} from '../../../src/foundation/process/containment.js';
import { descendantsOf } from '../../../src/foundation/process/process-control.js';

const how = containment();
const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const SUPERVISOR = join(REPO, 'test/fixtures/process/contained-supervisor.mjs');
const ROOT = process.geteuid?.() === 0;
/** Who runs the supervisor-like process, and whether in a user namespace. */
interface Runner {
  readonly who: string;
  /** A prefix that runs it as another user (`setpriv`), or none. */
  readonly as: readonly string[];
  readonly userNs: boolean;
}

/** This user; when root, also root without a user namespace, and an unprivileged user. */
const RUNNERS: readonly Runner[] = [
  { who: 'this user', as: [], userNs: true },
  ...(ROOT
    ? [
        { who: 'root without a user namespace', as: [], userNs: false },
        {
          who: 'an unprivileged user',
          as: ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'],
          userNs: true,
        },
      ]
    : []),
];

async function sleepers(tag: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === `sleep\0${tag}\0`) found.push(Number(entry));
  }
  return found;
}

function start(script: string, env: Record<string, string> = { PATH: '/usr/bin:/bin' }) {
  const started = spawnContained('/bin/sh', ['-c', script], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
    graceSec: 1,
  });
  let out = '';
  started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolve) => {
    started.child.on('close', (code) => {
      resolve({ code, out });
    });
  });
  return { started, done };
}

async function until(condition: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const DETACH = (tag: string): string =>
  `setsid env -i /bin/sh -c 'trap "" TERM; exec sleep ${tag}' </dev/null >/dev/null 2>&1 &`;

/** Pids running `/bin/sh <script>`, not counting its forks that have not started a program yet. */
async function running(script: string): Promise<number[]> {
  const cmdlines = new Map<number, string>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    cmdlines.set(Number(entry), await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => ''));
  }
  const wanted = `/bin/sh\0${script}\0`;
  const found: number[] = [];
  for (const [pid, cmdline] of cmdlines) {
    if (cmdline !== wanted) continue;
    const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (cmdlines.get(parent) !== wanted) found.push(pid);
  }
  return found;
}

/** The session id of `pid` (the sixth field of /proc/<pid>/stat). */
async function sessionOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

/**
 * A directory anyone may write, with `grandchild.sh`: started with `setsid -f`, it leaves the
 * command's process group and session, traps INT, QUIT, TERM and HUP (adding the name to `got`
 * and exiting), then makes `ready` and waits (for a `sleep`: it forks again only when that ends).
 */
async function grandchildDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'contained-'));
  await chmod(dir, 0o777);
  await writeFile(
    join(dir, 'grandchild.sh'),
    `for s in INT QUIT TERM HUP; do trap "echo $s >> '${dir}/got'; exit 0" $s; done\n` +
      `: > '${dir}/ready'\n` +
      'while :; do sleep 1000 & wait; done\n',
    { mode: 0o644 },
  );
  return dir;
}

/**
 * A supervisor-like Node process (`contained-supervisor.mjs`) that runs `script` contained, as
 * `runner` says; `send` gives it an action.
 */
function supervise(script: string, { as, userNs }: Runner) {
  const mode = userNs ? 'user-ns' : 'no-user-ns';
  // another user runs the built copy every user may read: the checkout may be closed to it
  const copy = as.length > 0 ? readableCopy() : undefined;
  const node =
    copy === undefined
      ? ['--import', 'tsx', SUPERVISOR, script, mode]
      : [copy.fixture('contained-supervisor.mjs'), script, mode];
  const [command, args] =
    as.length === 0
      ? [process.execPath, node]
      : [as[0] ?? '', [...as.slice(1), process.execPath, ...node]];
  const child = spawn(command, args, {
    cwd: copy?.root ?? REPO,
    env: { ...process.env, ...copy?.env },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const line = async (prefix: string): Promise<string> => {
    await until(async () => Promise.resolve(lines.some((l) => l.startsWith(prefix))), 15_000);
    return lines.find((l) => l.startsWith(prefix)) ?? '';
  };
  return {
    child,
    lines,
    line,
    send: (action: string) => child.stdin.write(`${action}\n`),
  };
}

/** Ends a container whose command ignores SIGTERM: it goes only after the grace (1 s). */
async function endsAfterGrace(
  tag: string,
  run: (script: string) => { started: ContainedProcess; done: Promise<unknown> },
): Promise<void> {
  const { started, done } = run(`trap '' TERM; exec sleep ${tag}`);
  await until(async () => (await sleepers(tag)).length === 1, 10_000);
  const ending = Date.now();
  started.end();
  await done;
  expect(Date.now() - ending).toBeGreaterThanOrEqual(900);
  await until(async () => (await sleepers(tag)).length === 0, 5_000);
}

const SIGNALS: readonly (readonly [NodeJS.Signals, number])[] = [
  ['SIGINT', 2],
  ['SIGQUIT', 3],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
  ['SIGKILL', 9],
];

describe.runIf(how.available)('spawnContained', () => {
  it('keeps the exit status, the environment and default signal dispositions', async () => {
    expect((await start('exit 7').done).code).toBe(7);
    const run = (command: string, args: string[]): Promise<string> => {
      const started = spawnContained(command, args, {
        env: { PATH: '/usr/bin:/bin', ONLY: 'this' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      return new Promise((resolve) =>
        started.child.on('close', () => {
          resolve(out);
        }),
      );
    };
    expect((await run('/usr/bin/env', [])).split('\n').filter((l) => l !== '')).toEqual([
      'PATH=/usr/bin:/bin',
      'ONLY=this',
    ]);
    const status = await run('/bin/grep', ['-E', '^Sig(Ign|Blk)', '/proc/self/status']);
    expect(status).toMatch(/SigIgn:\s+0+\n/);
    expect(status).toMatch(/SigBlk:\s+0+\n/);
  });

  it('gives the command its environment byte for byte, held by no other process', async () => {
    const canary = "cont-canary-9\nit's $HOME `x` \\ \"q\" 'z'";
    const tag = '3131.9';
    const started = spawnContained(
      '/bin/sh',
      ['-c', `printf '%s' "$SECRET_VALUE"; exec sleep ${tag}`],
      {
        env: { PATH: '/usr/bin:/bin', SECRET_VALUE: canary },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await until(async () => (await sleepers(tag)).length === 1 && out === canary, 10_000);
    // the command has it; the container's unshare and init do not
    const [sleeper = 0] = await sleepers(tag);
    expect(await readFile(`/proc/${sleeper}/environ`, 'utf8')).toContain(canary);
    const holders: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry) || Number(entry) === sleeper) continue;
      const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
      if (environ.includes('cont-canary-9')) holders.push(Number(entry));
    }
    expect(holders).toEqual([]);
    // in particular not the container's unshare and init, the two processes besides the command
    const outer = started.child.pid ?? 0;
    const [init = 0, ...inside] = descendantsOf(outer);
    expect(inside).toEqual([sleeper]);
    for (const pid of [outer, init]) {
      expect(await readFile(`/proc/${String(pid)}/environ`, 'utf8')).not.toContain('canary');
    }
    expect(await readFile(`/proc/${String(outer)}/cmdline`, 'utf8')).toMatch(/unshare\0/);
    expect(await readFile(`/proc/${String(init)}/cmdline`, 'utf8')).toContain(
      'codex-mmo-container',
    );
    started.kill();
    await until(async () => (await sleepers(tag)).length === 0, 10_000);
  });

  it('keeps the process group and input of the command', async () => {
    const tag = '3131.8';
    const started = spawnContained(
      '/bin/sh',
      ['-c', `read -r line; echo "$line"; exec sleep ${tag}`],
      {
        env: { PATH: '/usr/bin:/bin' },
        stdio: ['pipe', 'pipe', 'ignore'],
        detached: true,
      },
    );
    let out = '';
    started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    started.child.stdin?.end('through the container\n');
    await until(async () => (await sleepers(tag)).length === 1, 10_000);
    const [sleeper = 0] = await sleepers(tag);
    const stat = await readFile(`/proc/${String(sleeper)}/stat`, 'utf8');
    // the group `detached` made for unshare: the command's, with the init between them
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])).toBe(started.child.pid);
    expect(out).toBe('through the container\n');
    started.kill();
    await until(async () => (await sleepers(tag)).length === 0, 10_000);
  });

  it('ends a setsid child with a cleared environment when the command exits', async () => {
    const tag = '3131.1';
    const { done } = start(`${DETACH(tag)} sleep 0.3`);
    expect((await done).code).toBe(0);
    expect(await sleepers(tag)).toEqual([]);
  });

  const stops: [string, (c: ContainedProcess) => void][] = [
    [
      'signal(SIGTERM)',
      (c) => {
        c.signal('SIGTERM');
      },
    ],
    [
      'end()',
      (c) => {
        c.end();
      },
    ],
    [
      'kill()',
      (c) => {
        c.kill();
      },
    ],
  ];
  for (const [name, stop] of stops) {
    it(`ends everything in the container on ${name}`, async () => {
      const tag = `3131.${String(stops.findIndex(([n]) => n === name) + 2)}`;
      const { started, done } = start(`${DETACH(tag)} exec sleep 100`);
      await until(async () => (await sleepers(tag)).length === 1, 10_000);
      stop(started);
      await done;
      await until(async () => (await sleepers(tag)).length === 0, 5_000);
    });
  }

  it('delivers a signal sent as the container starts to the command', async () => {
    const tag = '3131.10';
    const { started, done } = start(`exec sleep ${tag}`);
    started.signal('SIGTERM');
    // the command's status after SIGTERM, not the container killed outright
    expect((await done).code).toBe(143);
    expect(started.child.signalCode).toBe(null);
    expect(await sleepers(tag)).toEqual([]);
  });

  it('kills the container after the grace when end() finds a command ignoring SIGTERM', async () => {
    await endsAfterGrace('3131.7', start);
  });

  for (const [index, runner] of RUNNERS.entries()) {
    const { who } = runner;
    for (const [signal, number] of SIGNALS) {
      it(`sends ${signal} to a grandchild in its own session, run by ${who}`, async () => {
        const dir = await grandchildDir();
        const tag = `4141.${String(number)}${String(index)}`;
        const supervisor = supervise(
          `setsid -f /bin/sh '${dir}/grandchild.sh'; exec sleep ${tag}`,
          runner,
        );
        try {
          await supervisor.line('started');
          await until(() => Promise.resolve(existsSync(join(dir, 'ready'))), 10_000);
          await until(async () => (await running(`${dir}/grandchild.sh`)).length === 1, 10_000);
          await until(async () => (await sleepers(tag)).length === 1, 10_000);
          const [grandchild = 0] = await running(`${dir}/grandchild.sh`);
          const [sleeper = 0] = await sleepers(tag);
          expect(await sessionOf(grandchild)).not.toBe(await sessionOf(sleeper));
          supervisor.send(`signal ${signal}`);
          // the command's status, as the container's: 128 + n
          expect(await supervisor.line('exit')).toBe(`exit ${String(128 + number)} null`);
          if (signal !== 'SIGKILL') {
            await until(
              async () => (await readFile(join(dir, 'got'), 'utf8').catch(() => '')) !== '',
              5_000,
            );
            // first: the container's own SIGTERM to what the command left may follow
            const got = await readFile(join(dir, 'got'), 'utf8');
            expect(got.split('\n')[0]).toBe(signal.slice(3));
          }
          await until(async () => (await running(`${dir}/grandchild.sh`)).length === 0, 5_000);
        } finally {
          supervisor.child.kill('SIGKILL');
          await rm(dir, { recursive: true, force: true });
        }
      });
    }

    it(`ends everything in the container at once when the supervisor, run by ${who}, is killed`, async () => {
      const dir = await grandchildDir();
      const tag = `5151.${String(index)}`;
      const supervisor = supervise(
        `setsid -f /bin/sh '${dir}/grandchild.sh'; ${DETACH(`${tag}1`)} exec sleep ${tag}`,
        runner,
      );
      try {
        const outer = Number((await supervisor.line('started')).split(' ')[1]);
        await until(async () => (await sleepers(`${tag}1`)).length === 1, 10_000);
        await until(async () => (await sleepers(tag)).length === 1, 10_000);
        await until(async () => (await running(`${dir}/grandchild.sh`)).length === 1, 10_000);
        const container = [outer, ...descendantsOf(outer)];
        // in a user namespace of its own, or in ours
        const [sleeper = 0] = await sleepers(tag);
        expect(
          (await readlink(`/proc/${String(sleeper)}/ns/user`)) ===
            (await readlink('/proc/self/ns/user')),
        ).toBe(!runner.userNs);
        // unshare, the init, the command, the grandchild and the detached sleeper
        const [init = 0] = descendantsOf(outer);
        expect(await readFile(`/proc/${String(init)}/cmdline`, 'utf8')).toContain(
          'codex-mmo-container',
        );
        for (const pid of [
          ...(await sleepers(tag)),
          ...(await sleepers(`${tag}1`)),
          ...(await running(`${dir}/grandchild.sh`)),
        ]) {
          expect(container).toContain(pid);
        }
        const killed = Date.now();
        supervisor.child.kill('SIGKILL');
        await until(
          async () =>
            (
              await Promise.all(
                container.map((pid) =>
                  readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => ''),
                ),
              )
            ).every((stat) => stat === '' || / [ZX] /.test(stat.slice(stat.lastIndexOf(')')))),
          5_000,
        );
        // by the parent-death signals, not after a grace period
        expect(Date.now() - killed).toBeLessThan(2_000);
        expect(await sleepers(tag)).toEqual([]);
        expect(await sleepers(`${tag}1`)).toEqual([]);
      } finally {
        supervisor.child.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

describe.runIf(how.available)('spawnContained with the command as the first process', () => {
  function first(script: string, env: Record<string, string> = { PATH: '/usr/bin:/bin' }) {
    const started = spawnContained('/bin/sh', ['-c', script], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
      graceSec: 1,
      firstProcess: 'command',
    });
    let out = '';
    started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const done = new Promise<{ code: number | null; signal: string | null; out: string }>(
      (resolve) => {
        started.child.on('close', (code, signal) => {
          resolve({ code, signal, out });
        });
      },
    );
    return { started, done };
  }

  it('runs the command as pid 1 beside unshare alone, with the environment only it holds', async () => {
    expect((await first('exit 7').done).code).toBe(7);
    const canary = "first-canary-4\nit's $HOME `x` \\ \"q\" 'z'";
    const tag = '3132.1';
    const { started } = first(`echo $$; printf '%s' "$SECRET_VALUE"; exec sleep ${tag}`, {
      PATH: '/usr/bin:/bin',
      SECRET_VALUE: canary,
    });
    let out = '';
    started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await until(async () => (await sleepers(tag)).length === 1 && out === `1\n${canary}`, 10_000);
    const [sleeper = 0] = await sleepers(tag);
    const outer = started.child.pid ?? 0;
    expect(descendantsOf(outer)).toEqual([sleeper]);
    expect(await readFile(`/proc/${String(outer)}/environ`, 'utf8')).not.toContain('canary');
    const holders: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
      if (environ.includes('first-canary-4')) holders.push(Number(entry));
    }
    expect(holders).toEqual([sleeper]);
    // the test's own shell adds PWD
    const environ = (await readFile(`/proc/${String(sleeper)}/environ`, 'utf8')).split('\0');
    expect(environ.filter((v) => !v.startsWith('PWD=')).sort()).toEqual([
      '',
      'PATH=/usr/bin:/bin',
      `SECRET_VALUE=${canary}`,
    ]);
    started.kill();
    await until(async () => (await sleepers(tag)).length === 0, 10_000);
  });

  it('ends a setsid child when the command exits', async () => {
    const tag = '3132.2';
    const { done } = first(`${DETACH(tag)} sleep 0.3`);
    expect((await done).code).toBe(0);
    await until(async () => (await sleepers(tag)).length === 0, 2_000);
  });

  it('gives SIGTERM to a command that handles it, with its children first', async () => {
    const tag = '3132.3';
    const { started, done } = first(
      `trap 'echo got; exit 3' TERM; while :; do sleep ${tag} & wait; done`,
    );
    await until(async () => (await sleepers(tag)).length === 1, 10_000);
    started.signal('SIGTERM');
    const { code, out } = await done;
    expect([code, out]).toEqual([3, 'got\n']);
  });

  it('ends at once a command that leaves SIGTERM to its default action, and everything it started', async () => {
    const tag = '3132.4';
    const { started, done } = first(`${DETACH(tag)} exec sleep 100`);
    await until(async () => (await sleepers(tag)).length === 1, 10_000);
    const ending = Date.now();
    started.end();
    const { code, signal } = await done;
    // as an ordinary process would: ended by the signal, before the grace (graceSec is 1)
    expect(Date.now() - ending).toBeLessThan(900);
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
    await until(async () => (await sleepers(tag)).length === 0, 2_000);
  });

  it('kills a command that ignores SIGTERM after the grace', async () => {
    await endsAfterGrace('3132.5', first);
  });

  it('delivers a signal sent as the container starts to the command', async () => {
    const { started, done } = first(`trap 'exit 5' TERM; while :; do sleep 3132.6 & wait; done`);
    started.signal('SIGTERM');
    // the trap's status, or killed as the shell would be before it set the trap: never lost
    const { code, signal } = await done;
    expect(code === 5 || signal === 'SIGKILL').toBe(true);
    expect(await sleepers('3132.6')).toEqual([]);
  });
});

describe('containment', () => {
  it('starts unshare under a parent-death signal, as it probed', () => {
    if (how.available) {
      expect(how.prefix.slice(1, 3)).toEqual(['--pdeathsig', 'KILL']);
      expect(how.prefix[0]).toMatch(/\/setpriv$/);
      expect(how.prefix[3]).toMatch(/\/unshare$/);
      expect(how.prefix.slice(-4)).toEqual(['--pid', '--fork', '--kill-child', '--mount-proc']);
    } else {
      expect(how.reason).toMatch(/setpriv|unshare/);
    }
  });

  it('is unavailable, with the reason, without setpriv', () => {
    const found = detectContainment({
      setpriv: ['/nonexistent/setpriv'],
      unshare: ['/usr/bin/unshare', '/bin/unshare'],
      sleep: ['/bin/sleep'],
      shell: '/bin/sh',
      root: false,
      mount: DEFAULT_CONTAINMENT_TOOLS.mount,
      mkdir: DEFAULT_CONTAINMENT_TOOLS.mkdir,
      uid: 65534,
      gid: 65534,
      probeDir: '/tmp',
    });
    expect(found.available).toBe(false);
    if (!found.available) expect(found.reason).toContain('setpriv');
  });

  it('is found the same way without blocking, and fails the same way', async () => {
    expect(await detectContainmentAsync()).toEqual(detectContainment());
    // a shell that cannot run: every candidate fails, and the reason is the probe's own
    const broken = { ...DEFAULT_CONTAINMENT_TOOLS, shell: '/nonexistent/sh' };
    const found = await detectContainmentAsync(broken);
    expect(found).toEqual(detectContainment(broken));
    expect(found.available).toBe(false);
  });

  it('is unavailable, with the reason, without unshare', () => {
    const found = detectContainment({
      setpriv: ['/usr/bin/setpriv', '/bin/setpriv'],
      unshare: ['/nonexistent/unshare'],
      sleep: ['/bin/sleep'],
      shell: '/bin/sh',
      root: false,
      mount: DEFAULT_CONTAINMENT_TOOLS.mount,
      mkdir: DEFAULT_CONTAINMENT_TOOLS.mkdir,
      uid: 65534,
      gid: 65534,
      probeDir: '/tmp',
    });
    expect(found.available).toBe(false);
    if (!found.available) expect(found.reason).toContain('unshare');
  });

  it('runs the command directly when unavailable', async () => {
    const started = spawnContained('/bin/sh', ['-c', 'echo $$'], {
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'ignore'],
      containment: { available: false, reason: 'test' },
    });
    expect(started.contained).toBe(false);
    let out = '';
    started.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((resolve) => started.child.on('close', resolve));
    expect(Number(out.trim())).toBe(started.child.pid);
  });
});
