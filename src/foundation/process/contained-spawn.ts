/**
 * Starts a session's process (Codex, app-servers, Tool MCP servers) in a container of its own when
 * the machine allows it: a PID namespace, `unshare`, and an init besides the command or the command
 * as the first process. The supervisor signals the processes inside itself (from /proc); its death
 * kills the container through parent-death signals. Whatever the command starts, even `setsid`,
 * ends with it.
 */
import {
  spawn,
  type ChildProcess,
  type IOType,
  type StdioNull,
  type StdioPipe,
} from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { constants } from 'node:os';

import { maskScript, type ContainerMasks } from './container-masks.js';
import { containment, CONTAINER_SHELL, type Containment } from './containment.js';
import {
  CONTAINER_EXEC,
  CONTAINER_INIT,
  CONTAINER_INIT_NAME,
  environmentScript,
} from './container-init.js';
import { HOST_FILTER_FD, spawnInView, type HostViewLaunch } from './host-view.js';
import { stampOf } from './process-ancestry.js';
import { descendantsOf } from './process-control.js';
import { treeChildren } from './process-tree.js';
import type { ProcessStamp } from './tcp-peer.js';

/** Seconds between SIGTERM and SIGKILL when the supervisor ends a container. */
export const CONTAINER_GRACE_SEC = 3;

type StdioEntry = IOType | StdioNull | StdioPipe | 'inherit';

export interface ContainedOptions {
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
  /** The command's standard input, output and error. */
  readonly stdio: readonly [StdioEntry, StdioEntry, StdioEntry];
  /** A process group of its own (as `spawn`'s `detached`). */
  readonly detached?: boolean;
  /** Grace between SIGTERM and SIGKILL when the container is ended (default 3 s). */
  readonly graceSec?: number;
  /** How to contain it (default: this machine's `containment()`). */
  readonly containment?: Containment;
  /**
   * The namespace's first process. `'init'` (default): an init runs the command, then gives what
   * it left SIGTERM and a grace. `'command'`: the command itself, one process fewer; what it
   * leaves is killed with it, and a signal it neither handles nor ignores, which the kernel
   * withholds from a first process, is given as its default action would be: SIGKILL.
   */
  readonly firstProcess?: 'init' | 'command';
  /**
   * Directories the container's processes may not see (`containerMasks`); only where the
   * containment can mask (`masking`), else the spawn throws: nothing starts unmasked.
   */
  readonly masks?: ContainerMasks;
  /**
   * The host view the command runs in (`host-view.ts`): `bwrap` stands between the container and
   * the command, and is not signalled itself (its end would orphan the command).
   */
  readonly view?: HostViewLaunch;
}

export interface ContainedProcess {
  /** The started process: the container's outer process (`unshare`), or the command itself. */
  readonly child: ChildProcess;
  /** Whether the command runs in a container. */
  readonly contained: boolean;
  /** Sends `signal` to every process of the container (to the command alone when uncontained). */
  signal(signal: NodeJS.Signals): void;
  /**
   * Ends the container: SIGTERM to all of its processes, SIGKILL after the grace period (at once
   * if this process exits first).
   */
  end(): void;
  /** Kills the container and everything in it at once. */
  kill(): void;
  /**
   * The container's first process (its init, or the command) as /proc names it while the
   * container runs; undefined when uncontained or not yet started. Once that process is gone,
   * so is every process of the container's PID namespace.
   */
  firstProcess(): ProcessStamp | undefined;
}

/** The signals `signal()` sends to the processes of a container; any other ends it. */
const FORWARDED: ReadonlySet<NodeJS.Signals> = new Set([
  'SIGINT',
  'SIGQUIT',
  'SIGTERM',
  'SIGHUP',
  'SIGKILL',
]);

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function send(child: ChildProcess, signal: NodeJS.Signals): void {
  if (exited(child)) return;
  try {
    child.kill(signal);
  } catch {
    // already gone
  }
}

/** What a signal found: no first process yet (or gone), one still starting, or processes. */
type Reach = 'none' | 'starting' | 'sent';

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile
  }
}

/**
 * Sends `signal` to every process of the container whose `unshare` is `outer`: the descendants of
 * its init (the one child of `unshare`), as `kill -1` inside would — not the init, which as the
 * namespace's first process takes no signal it does not handle, and not `unshare`. Deepest
 * first, the command last: its end makes the init send SIGTERM to what is left. 'starting' is an
 * init alone (the command not started yet, or ended).
 */
function signalUnderInit(outer: number, signal: NodeJS.Signals, viewed: boolean): Reach {
  const children = treeChildren(outer);
  const init = children.get(outer)?.[0];
  if (init === undefined) return 'none';
  // in a host view, the init's child is `bwrap`, which waits for the command and exits with it
  const top = viewed ? (children.get(init) ?? []) : [init];
  const inside = top.flatMap((pid) => descendantsOf(pid, children));
  for (const pid of inside.reverse()) kill(pid, signal);
  return inside.length > 0 ? 'sent' : 'starting';
}

/** How `pid` takes `signal`, from the masks /proc shows ('default' where it says nothing). */
function dispositionOf(pid: number, signal: NodeJS.Signals): 'caught' | 'ignored' | 'default' {
  let status = '';
  try {
    status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  } catch {
    return 'default';
  }
  const bit = 1n << BigInt(constants.signals[signal] - 1);
  const mask = (name: string): bigint => {
    const hex = new RegExp(`^${name}:\\s*([0-9a-f]+)$`, 'm').exec(status)?.[1];
    return hex === undefined ? 0n : BigInt(`0x${hex}`);
  };
  if ((mask('SigCgt') & bit) !== 0n) return 'caught';
  return (mask('SigIgn') & bit) !== 0n ? 'ignored' : 'default';
}

/** Whether `pid` still runs the script that sets the environment before the command. */
function settingUp(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8');
    return cmdline.startsWith(`${CONTAINER_SHELL}\0-c\0${CONTAINER_EXEC}\0`);
  } catch {
    return false;
  }
}

/**
 * Sends `signal` to every process of the container whose `unshare` is `outer` and whose first
 * process is the command: its descendants, deepest first, then the command itself as an ordinary
 * process would take it. Every forwarded signal's default action ends it: then `unshare` is
 * killed, and its `--kill-child` kills the command and with it the namespace (`unshare` reports a
 * command it saw killed by SIGKILL as a failure of its own). 'starting' is the command not started
 * yet; 'caught' a command that handles the signal, to be watched (`watchHandler`).
 */
function signalCommandFirst(outer: number, signal: NodeJS.Signals): Reach | 'caught' {
  const children = treeChildren(outer);
  const first = children.get(outer)?.[0];
  if (first === undefined) return 'none';
  if (settingUp(first)) return 'starting';
  for (const pid of descendantsOf(first, children).reverse()) kill(pid, signal);
  const disposition = signal === 'SIGKILL' ? 'default' : dispositionOf(first, signal);
  if (disposition === 'caught') {
    kill(first, signal);
    return 'caught';
  }
  if (disposition === 'default') kill(outer, 'SIGKILL');
  return 'sent';
}

/** How often a first process that handled a signal is looked at. */
const WATCH_MS = 25;
/**
 * How long a first process must keep running with its handler given up before it is killed: one
 * exiting by itself also gives its handlers up, a moment before it is gone.
 */
const SETTLE_MS = 250;

/**
 * Watches a first process that handled `signal`, for up to `ms`: one that gives its handler up
 * while it still runs has re-raised the signal, which the kernel withholds from it (Node's own
 * SIGTERM and SIGINT handler does so when no listener is set), and gets the default action:
 * `unshare` is killed. One that keeps its handler ends as it chooses, or with the container; one
 * that is exiting is left to end (`SETTLE_MS`).
 */
function watchHandler(child: ChildProcess, signal: NodeJS.Signals, ms: number): void {
  const outer = child.pid;
  const first = outer === undefined ? undefined : treeChildren(outer).get(outer)?.[0];
  if (outer === undefined || first === undefined) return;
  const deadline = Date.now() + ms;
  let givenUp: number | undefined;
  const look = (): void => {
    if (exited(child) || Date.now() > deadline) return;
    if (dispositionOf(first, signal) !== 'default') givenUp = undefined;
    else if (givenUp === undefined) givenUp = Date.now();
    else if (Date.now() - givenUp >= SETTLE_MS) {
      kill(outer, 'SIGKILL');
      return;
    }
    setTimeout(look, WATCH_MS).unref();
  };
  look();
}

/** How often, and how many times, a signal finding no process under an init is tried again. */
const RETRY_MS = 25;
const RETRIES = 40;

/** The container's descriptors: the command's three, the environment (3), the view's filter. */
function containerStdio(
  stdio: ContainedOptions['stdio'],
  viewed: boolean,
): (StdioEntry | 'ignore')[] {
  const all: (StdioEntry | 'ignore')[] = [...stdio, 'pipe'];
  if (!viewed) return all;
  while (all.length < HOST_FILTER_FD) all.push('ignore');
  all.push('pipe');
  return all;
}

/** Starts `command args` in a container of its own (see the module comment). */
export function spawnContained(
  command: string,
  args: readonly string[],
  options: ContainedOptions,
): ContainedProcess {
  const how = options.containment ?? containment();
  const masking = how.available ? how.masking : undefined;
  if (options.masks !== undefined && masking === undefined) {
    throw new Error('this machine cannot mask directories in a container');
  }
  const base = {
    env: { ...options.env },
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.detached === true ? { detached: true } : {}),
    windowsHide: true,
  };
  if (!how.available) {
    const child =
      options.view === undefined
        ? spawn(command, [...args], { ...base, stdio: [...options.stdio] })
        : spawnInView(options.view, [command, ...args], { ...base, stdio: [...options.stdio] });
    return {
      child,
      contained: false,
      signal: (signal) => {
        send(child, signal);
      },
      end: () => {
        send(child, 'SIGTERM');
      },
      kill: () => {
        send(child, 'SIGKILL');
      },
      firstProcess: () => undefined,
    };
  }
  const graceMs = (options.graceSec ?? CONTAINER_GRACE_SEC) * 1000;
  const commandFirst = options.firstProcess === 'command';
  const view = options.view;
  if (view !== undefined && commandFirst) throw new Error('a host view needs an init');
  const { script, rest } = environmentScript(options.env);
  const masked = options.masks !== undefined && masking !== undefined ? masking : undefined;
  const prefix = masked?.prefix ?? how.prefix;
  const setup =
    masked !== undefined && options.masks !== undefined
      ? script + maskScript(options.masks, masked)
      : script;
  const child = spawn(
    prefix[0] ?? 'unshare',
    [
      ...prefix.slice(1),
      CONTAINER_SHELL,
      '-c',
      commandFirst ? CONTAINER_EXEC : CONTAINER_INIT,
      CONTAINER_INIT_NAME,
      how.sleep,
      options.env.PWD === undefined ? 'unset-pwd' : 'keep-pwd',
      ...(masked?.nest ?? []),
      ...(view?.argv ?? []),
      command,
      ...args,
    ],
    { ...base, env: rest, stdio: containerStdio(options.stdio, view !== undefined) },
  );
  const environment = child.stdio[3] as Socket | null | undefined;
  environment?.on('error', () => undefined);
  environment?.end(setup);
  if (view !== undefined) {
    const filter = (child.stdio as unknown[])[HOST_FILTER_FD] as Socket | null | undefined;
    filter?.on('error', () => undefined);
    filter?.end(view.filter);
  }
  // reaches the processes inside, or ends the container when nothing inside can be reached; a
  // container just started may have no init yet, or an init still reading the environment, so
  // the signal is tried again for a while (until the container has exited)
  const signal = (name: NodeJS.Signals, retries = RETRIES): void => {
    const outer = child.pid;
    if (outer === undefined || exited(child)) return;
    if (!FORWARDED.has(name)) {
      send(child, 'SIGKILL');
      return;
    }
    const reach = commandFirst
      ? signalCommandFirst(outer, name)
      : signalUnderInit(outer, name, view !== undefined);
    if (reach === 'caught') watchHandler(child, name, graceMs);
    if (reach === 'sent' || reach === 'caught') return;
    if (retries > 0) {
      setTimeout(() => {
        signal(name, retries - 1);
      }, RETRY_MS).unref();
    } else if (reach === 'none' || commandFirst) send(child, 'SIGKILL');
  };
  let ending: NodeJS.Timeout | undefined;
  return {
    child,
    contained: true,
    signal: (name) => {
      signal(name);
    },
    end: () => {
      signal('SIGTERM');
      if (ending !== undefined || exited(child)) return;
      // never keeps codex-mmo running: when it exits first, the parent-death signal kills all
      ending = setTimeout(() => {
        send(child, 'SIGKILL');
      }, graceMs);
      ending.unref();
      child.once('exit', () => {
        clearTimeout(ending);
      });
    },
    kill: () => {
      send(child, 'SIGKILL');
    },
    firstProcess: () => {
      const outer = child.pid;
      if (outer === undefined || exited(child)) return undefined;
      const first = treeChildren(outer).get(outer)?.[0];
      return first === undefined ? undefined : stampOf(first);
    },
  };
}
