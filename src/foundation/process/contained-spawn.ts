/**
 * Starts a session's process (Codex, app-servers, Tool MCP servers) in a container of its own when
 * the machine allows it: a PID namespace, `unshare` and an init besides the command. The supervisor
 * signals the processes under the init itself (from /proc); its death kills the container through
 * parent-death signals. Whatever the command starts, even `setsid`, ends with it.
 */
import {
  spawn,
  type ChildProcess,
  type IOType,
  type StdioNull,
  type StdioPipe,
} from 'node:child_process';
import type { Socket } from 'node:net';

import { containment, CONTAINER_SHELL, type Containment } from './containment.js';
import { CONTAINER_INIT, CONTAINER_INIT_NAME, environmentScript } from './container-init.js';
import { descendantsOf, processChildren } from './process-control.js';

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

/**
 * Sends `signal` to every process of the container whose `unshare` is `outer`: the descendants of
 * its init (the one child of `unshare`), as `kill -1` inside would — not the init, which as the
 * namespace's first process takes no signal it does not handle, and not `unshare`. Deepest
 * first, the command last: its end makes the init send SIGTERM to what is left. Says whether
 * there was no init (not started yet, or gone), an init alone (the command not started yet, or
 * ended) or processes under it.
 */
function signalInside(outer: number, signal: NodeJS.Signals): 'no-init' | 'init-alone' | 'sent' {
  const children = processChildren();
  const init = children.get(outer)?.[0];
  if (init === undefined) return 'no-init';
  const inside = descendantsOf(init, children);
  for (const pid of inside.reverse()) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
  return inside.length > 0 ? 'sent' : 'init-alone';
}

/** How often, and how many times, a signal finding no process under an init is tried again. */
const RETRY_MS = 25;
const RETRIES = 40;

/** Starts `command args` in a container of its own (see the module comment). */
export function spawnContained(
  command: string,
  args: readonly string[],
  options: ContainedOptions,
): ContainedProcess {
  const how = options.containment ?? containment();
  const base = {
    env: { ...options.env },
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.detached === true ? { detached: true } : {}),
    windowsHide: true,
  };
  if (!how.available) {
    const child = spawn(command, [...args], { ...base, stdio: [...options.stdio] });
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
    };
  }
  const graceMs = (options.graceSec ?? CONTAINER_GRACE_SEC) * 1000;
  const { script, rest } = environmentScript(options.env);
  const child = spawn(
    how.prefix[0] ?? 'unshare',
    [
      ...how.prefix.slice(1),
      CONTAINER_SHELL,
      '-c',
      CONTAINER_INIT,
      CONTAINER_INIT_NAME,
      how.sleep,
      options.env.PWD === undefined ? 'unset-pwd' : 'keep-pwd',
      command,
      ...args,
    ],
    { ...base, env: rest, stdio: [...options.stdio, 'pipe'] },
  );
  const environment = child.stdio[3] as Socket | null | undefined;
  environment?.on('error', () => undefined);
  environment?.end(script);
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
    const sent = signalInside(outer, name);
    if (sent === 'sent') return;
    if (retries > 0) {
      setTimeout(() => {
        signal(name, retries - 1);
      }, RETRY_MS).unref();
    } else if (sent === 'no-init') send(child, 'SIGKILL');
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
  };
}
