/**
 * The one place codex-mmo starts a process that belongs to a session (Codex, app-servers, Tool
 * MCP servers): inside its own container — a PID namespace whose init is `CONTAINER_INIT` — when
 * the machine allows it, else directly. Whatever the command starts, detached, `setsid` or with
 * its environment cleared, stays in the container and ends with it: when the command ends, when
 * the supervisor ends the container, and when the supervisor dies (its control pipe closes).
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

/** Seconds between SIGTERM and SIGKILL when a container ends because its control pipe closed. */
export const CONTAINER_GRACE_SEC = 3;

type StdioEntry = IOType | StdioNull | StdioPipe | 'inherit';

export interface ContainedOptions {
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
  /** The command's standard input, output and error. */
  readonly stdio: readonly [StdioEntry, StdioEntry, StdioEntry];
  /** A process group of its own (as `spawn`'s `detached`). */
  readonly detached?: boolean;
  /** Grace between SIGTERM and SIGKILL when the control pipe closes (default 3 s). */
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
  /** Ends the container: SIGTERM to all of its processes, SIGKILL after the grace period. */
  end(): void;
  /** Kills the container and everything in it at once. */
  kill(): void;
}

const NAMES: Partial<Record<NodeJS.Signals, string>> = {
  SIGINT: 'INT',
  SIGQUIT: 'QUIT',
  SIGTERM: 'TERM',
  SIGHUP: 'HUP',
  SIGKILL: 'KILL',
};

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
  const grace = String(options.graceSec ?? CONTAINER_GRACE_SEC);
  const { script, rest } = environmentScript(options.env);
  const child = spawn(
    how.prefix[0] ?? 'unshare',
    [
      ...how.prefix.slice(1),
      CONTAINER_SHELL,
      '-c',
      CONTAINER_INIT,
      CONTAINER_INIT_NAME,
      grace,
      how.sleep,
      options.env.PWD === undefined ? 'unset-pwd' : 'keep-pwd',
      command,
      ...args,
    ],
    { ...base, env: rest, stdio: [...options.stdio, 'pipe', 'pipe'] },
  );
  const environment = child.stdio[4] as Socket | null | undefined;
  environment?.on('error', () => undefined);
  environment?.end(script);
  const control = child.stdio[3] as Socket | null | undefined;
  control?.on('error', () => undefined);
  // the control pipe never keeps codex-mmo running; the child's own handle decides that
  control?.unref();
  const write = (line: string): void => {
    if (control !== null && control !== undefined && control.writable) control.write(line);
  };
  return {
    child,
    contained: true,
    signal: (signal) => {
      const name = NAMES[signal];
      if (name === undefined || control === null || control === undefined || !control.writable) {
        // no way to reach the processes inside: end the container
        send(child, 'SIGKILL');
        return;
      }
      write(`${name}\n`);
    },
    end: () => {
      if (control !== null && control !== undefined && control.writable) control.end();
      else send(child, 'SIGKILL');
    },
    kill: () => {
      send(child, 'SIGKILL');
    },
  };
}
