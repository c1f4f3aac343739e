/**
 * An MCP stdio client transport that starts the server in its own process group, reads
 * newline-delimited JSON-RPC from its stdout (skipping lines that are not JSON-RPC, as Codex does,
 * but remembering them), keeps a bounded tail of its stderr, and stops the whole group: stdin
 * closed, SIGTERM, then SIGKILL after a grace period. A session's server runs in a container of
 * its own (`spawnContained`), as its first process, so no process it starts outlives it, detached
 * or not.
 */
import { addProcessHook, removeProcessHook } from '../../foundation/process/process-hooks.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { describeError } from '../../foundation/errors.js';
import { LineSplitter, encodeJsonLine } from '../../foundation/json-lines.js';
import { spawnContained, type ContainedProcess } from '../../foundation/process/contained-spawn.js';
import { isAlive, signalGroup } from '../../foundation/process/process-control.js';
import { descendants } from '../../foundation/process/process-tree.js';
import { processStart, type ProcessStamp } from '../../foundation/process/tcp-peer.js';
import { readJsonRpcLine } from './json-rpc-line.js';

/** Bytes of stderr kept (the most recent ones). */
export const STDERR_KEEP_BYTES = 64 * 1024;
/** Longest stdout line accepted; a longer one is a protocol error. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Signals on which a still-running server group is killed before codex-mmo goes down. */
const TERMINATING_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Non-JSON-RPC stdout lines remembered for the report. */
const NOISE_KEEP = 5;

export interface ProcessGroupTransportOptions {
  /** Executable path (already resolved). */
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** How long to wait after SIGTERM before SIGKILL. */
  readonly graceMs?: number;
  /** In a container of its own (a session's server): nothing it starts outlives it. */
  readonly contained?: boolean;
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The process groups with a live (non-zombie) member, from one walk of /proc. */
async function scanLiveGroups(): Promise<ReadonlySet<number> | undefined> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return undefined;
  }
  const live = new Set<number>();
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
        if (stat === undefined) return;
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (fields[0] !== 'Z' && fields[0] !== 'X') live.add(Number(fields[2]));
      }),
  );
  return live;
}

/**
 * One walk of /proc shared by every caller waiting at the same time: a session stopping its
 * servers asks for each of them every 25 ms, and a walk per server per look (measured: 65
 * servers) took seconds of the two cores that the servers needed to end.
 */
let scanning: Promise<ReadonlySet<number> | undefined> | undefined;
function liveGroups(): Promise<ReadonlySet<number> | undefined> {
  scanning ??= scanLiveGroups().finally(() => {
    scanning = undefined;
  });
  return scanning;
}

/** Whether any live (non-zombie) process is left in process group `pgid`. */
export async function processGroupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  // kill(0) also succeeds for zombies; look for a member that is still running
  const live = await liveGroups();
  return live === undefined || live.has(pgid);
}

/**
 * Whether a container's first process is over with every process of its PID namespace: its pid
 * gone or another process's, or it a zombie left without children (the namespace's orphans are
 * its children, and the kernel lets it exit before they have all gone). A process still exiting
 * may refuse reads of its /proc entry: that is not over.
 */
function containerOver(first: ProcessStamp): boolean {
  try {
    process.kill(first.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
  }
  const start = processStart(first.pid);
  if (start !== undefined && start !== first.start) return true;
  return !isAlive(first.pid) && descendants(first.pid).length === 0;
}

/** Waits (until `deadline`) for `containerOver`; true when it is. */
async function firstGone(first: ProcessStamp, deadline: number): Promise<boolean> {
  let step = 2;
  for (;;) {
    if (containerOver(first)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(step);
    step = Math.min(25, step * 2);
  }
}

export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private child: ChildProcess | undefined;
  private container: ContainedProcess | undefined;
  /** Stdout split into lines; an over-long line stops it and the transport. */
  private readonly stdoutLines = new LineSplitter(
    (line) => {
      this.onLine(line);
    },
    {
      maxLineLength: MAX_LINE_BYTES,
      onOverflow: () => {
        this.fatalProtocolError = `the server wrote a stdout line longer than ${MAX_LINE_BYTES} bytes`;
        void this.close();
      },
    },
  );
  private stderrChunks: Buffer[] = [];
  private stderrBytes = 0;
  private stderrTruncated = false;
  private closed = false;
  private exitWaiters: (() => void)[] = [];
  /** If codex-mmo itself exits, the server group goes with it. */
  private readonly exitHook = (): void => {
    this.killGroup('SIGKILL');
    this.removeHooks();
  };
  /**
   * The server runs in its own session, so a Ctrl-C in the terminal does not reach it: on a
   * terminating signal, kill the group, then let the signal take its default course.
   */
  private readonly signalHook = (signal: NodeJS.Signals): void => {
    this.killGroup('SIGKILL');
    this.removeHooks();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };

  /** Set when the process could not be started at all. */
  spawnError: Error | undefined;
  /** Set once the server process has exited. */
  exit: ExitInfo | undefined;
  /** The first few stdout lines that were not JSON-RPC. */
  readonly noise: string[] = [];
  noiseCount = 0;
  /** JSON-RPC messages received. */
  messages = 0;
  /** Set when stdout broke the framing badly enough to stop (an over-long line). */
  fatalProtocolError: string | undefined;
  /** Version negotiated by `initialize`. */
  protocolVersion: string | undefined;
  /** Whether the process ended before `stop()` was asked for (crash or early exit). */
  exitedUnprompted = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: ProcessGroupTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        // a session's server in a container of its own, as its first process (no init besides
        // it): what it starts, even `setsid`, ends with it
        this.container =
          this.options.contained === true
            ? spawnContained(this.options.command, this.options.args, {
                cwd: this.options.cwd,
                env: this.options.env,
                stdio: ['pipe', 'pipe', 'pipe'],
                detached: true,
                firstProcess: 'command',
              })
            : undefined;
        child =
          this.container !== undefined
            ? this.container.child
            : spawn(this.options.command, [...this.options.args], {
                cwd: this.options.cwd,
                env: { ...this.options.env },
                stdio: ['pipe', 'pipe', 'pipe'],
                detached: true,
                windowsHide: true,
              });
      } catch (error) {
        this.spawnError = error instanceof Error ? error : new Error(String(error));
        reject(this.spawnError);
        return;
      }
      this.child = child;
      let spawned = false;
      child.on('error', (error) => {
        if (spawned) return;
        this.spawnError ??= error;
        reject(error);
        this.finish();
      });
      child.once('spawn', () => {
        spawned = true;
        this.addHooks();
        resolve();
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        this.stdoutLines.push(chunk);
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        this.onStderr(chunk);
      });
      child.stdin?.on('error', () => {
        // EPIPE after the server exits is reported through 'exit'
      });
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        if (this.stopping === undefined) this.exitedUnprompted = true;
      });
      child.once('close', (code, signal) => {
        this.exit ??= { code, signal };
        if (this.stopping === undefined) this.exitedUnprompted = true;
        this.finish();
      });
    });
  }

  private onLine(line: string): void {
    if (this.closed) return;
    const message = readJsonRpcLine(line);
    if (message === undefined) {
      this.noiseCount++;
      if (this.noise.length < NOISE_KEEP) this.noise.push(line);
      return;
    }
    this.messages++;
    this.onmessage?.(message);
  }

  private onStderr(chunk: Buffer): void {
    this.stderrChunks.push(chunk);
    this.stderrBytes += chunk.length;
    while (this.stderrBytes > STDERR_KEEP_BYTES && this.stderrChunks.length > 1) {
      const dropped = this.stderrChunks.shift();
      this.stderrBytes -= dropped?.length ?? 0;
      this.stderrTruncated = true;
    }
  }

  /**
   * The kept stderr text. When older output was dropped, the first (possibly partial) line is
   * dropped too, so a value cut in half can never appear unmasked.
   */
  stderrText(): string {
    let text = Buffer.concat(this.stderrChunks).toString('utf8');
    if (this.stderrTruncated) {
      const newline = text.indexOf('\n');
      text = newline === -1 ? '' : text.slice(newline + 1);
    }
    return text;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.closed || !stdin || stdin.destroyed) {
      return Promise.reject(new Error('the server process is not running'));
    }
    return new Promise((resolve, reject) => {
      stdin.write(encodeJsonLine(message), (error) => {
        if (error) reject(error);
        else resolve();
      });
    });
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.exitWaiters.splice(0)) waiter();
    this.onclose?.();
  }

  /** Resolves when the process has exited and its output streams are closed (or after `ms`). */
  async waitForExit(ms: number): Promise<boolean> {
    if (this.closed || this.child === undefined) return true;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      new Promise<boolean>((resolve) => {
        this.exitWaiters.push(() => {
          resolve(true);
        });
      }),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => {
          resolve(false);
        }, ms);
      }),
    ]);
    clearTimeout(timer);
    return done;
  }

  private addHooks(): void {
    addProcessHook('exit', this.exitHook);
    // a contained server is a session's: the session stops it in order on a signal (requests
    // that come meanwhile are refused, not cut off), and its container ends with this process
    if (this.options.contained === true) return;
    for (const signal of TERMINATING_SIGNALS) addProcessHook(signal, this.signalHook);
  }

  private removeHooks(): void {
    removeProcessHook('exit', this.exitHook);
    for (const signal of TERMINATING_SIGNALS) removeProcessHook(signal, this.signalHook);
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid !== undefined) signalGroup(pid, signal);
  }

  /**
   * Stops the server and every process in its group: closes stdin, sends SIGTERM to the group,
   * waits up to the grace period for all of them to exit, then sends SIGKILL.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopGroup();
    return this.stopping;
  }

  private async stopGroup(): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined) {
      this.finish();
      return;
    }
    // a container ends as a whole: once its first process is gone, so is every other process
    // of its PID namespace (the kernel ends them before it lets the first one go)
    const first = this.container?.firstProcess();
    child.stdin?.end();
    if (this.container !== undefined) this.container.signal('SIGTERM');
    else this.killGroup('SIGTERM');
    const grace = this.options.graceMs ?? 1500;
    const deadline = Date.now() + grace;
    if (
      this.container !== undefined &&
      first !== undefined &&
      (await this.waitForExit(grace)) &&
      (await firstGone(first, deadline))
    ) {
      this.settle(child);
      return;
    }
    // looked at again when the server exits (at once, most often); what is left of its group
    // soon after (5, 10, 20 ms), then every 25 ms
    let step = 5;
    const pause = async (): Promise<void> => {
      if (this.closed) await sleep(step);
      else await this.waitForExit(step);
      step = Math.min(25, step * 2);
    };
    while ((await processGroupAlive(pid)) && Date.now() < deadline) await pause();
    if (await processGroupAlive(pid)) {
      this.killGroup('SIGKILL');
      const hardDeadline = Date.now() + 2000;
      while ((await processGroupAlive(pid)) && Date.now() < hardDeadline) await sleep(25);
    }
    await this.waitForExit(1000);
    this.settle(child);
  }

  private settle(child: ChildProcess): void {
    this.removeHooks();
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    this.finish();
  }

  async close(): Promise<void> {
    await this.stop();
  }

  /** A short description of why the process is gone, for messages. */
  describeExit(): string {
    if (this.spawnError) return `it could not be started (${describeError(this.spawnError)})`;
    if (this.exit === undefined) return 'it stopped responding';
    if (this.exit.signal !== null) return `it was killed by ${this.exit.signal}`;
    return `it exited with code ${String(this.exit.code)}`;
  }
}
