/**
 * One participant: a private `codex app-server` driven over JSON-RPC (initialize → thread/start →
 * turn/start with the task), with its own Codex home and environment. Tracks its turns, queues
 * messages that arrive mid-turn, keeps the final message of the last turn, reports a crash with a
 * masked stderr tail, and is abandoned if MCP startup does not finish within its lifecycle wait.
 */
import type { ContainerMasks } from '../../foundation/process/container-masks.js';
import type { HostViewLaunch } from '../../foundation/process/host-view.js';
import { AppendQueue } from '../../foundation/append-queue.js';

import { AppServerClient, type ApprovalPolicy } from '../codex/app-server-client.js';
import type { ServerNotification, TurnInfo } from '../codex/app-server-protocol.js';
import { describeError } from '../../foundation/errors.js';
import { MaskingStream, maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import {
  MeshError,
  type ParticipantInfo,
  type ParticipantStatus,
} from '../protocol/mesh-protocol.js';

export interface ParticipantSpec {
  readonly id: string;
  readonly role: string;
  /** `root` or the id of the participant that spawned this one. */
  readonly owner: string;
  readonly task: string;
  /** A thread its home holds to continue (`thread/resume`), and whose it was (`<session>/<id>`). */
  readonly resume?: { readonly thread: string; readonly from: string };
  readonly cwd: string;
  /** The participant's private Codex home (already written). */
  readonly home: string;
  /** Directories its container hides from it, its home kept (`ContainerMasks`). */
  readonly masks?: ContainerMasks;
  /** The host view it runs in. */
  readonly view?: HostViewLaunch;
  /** The complete environment of the app-server (built by `buildChildEnv`). */
  readonly env: Readonly<Record<string, string>>;
  readonly codexBin: string;
  /** Longest wait for the app-server to start its thread (MCP startup included), in seconds. */
  readonly lifecycleWaitSec: number;
  /**
   * The MCP servers enabled for the participant's role. Their startup is awaited (within the
   * lifecycle wait) before the first turn, so the model sees every tool that could start.
   */
  readonly servers?: readonly string[];
  /** Values to mask in anything taken from the participant's output. */
  readonly secrets: readonly string[];
  /** File the app-server's stderr is appended to (masked), if any. */
  readonly stderrLog?: string;
  /**
   * Answers approval requests: the session's approval queue, where a person decides; without
   * one they are declined.
   */
  readonly approvals?: ApprovalPolicy;
  /** Receives every notification of the participant's app-server (the session's event log). */
  readonly onNotification?: (n: ServerNotification) => void;
  /** Called with the app-server's pid (its container) as soon as it is spawned. */
  readonly onSpawn?: (pid: number) => void;
}

const STDERR_TAIL_CHARS = 2000;
/** Time the app-server gets for `initialize` and `turn/start`, which do not wait for MCP startup. */
const REQUEST_TIMEOUT_MS = 60_000;

type Waiter = () => void;

export class Participant {
  readonly id: string;
  readonly role: string;
  readonly owner: string;
  readonly cwd: string;
  readonly started = new Date().toISOString();
  private endedAt: string | undefined;
  private statusValue: ParticipantStatus = 'starting';
  private client: AppServerClient | undefined;
  private threadId: string | undefined;
  private turnActive = false;
  private turnMessages: string[] = [];
  private finalMessage: string | undefined;
  private errorText: string | undefined;
  private failedServers: { server: string; error: string }[] = [];
  private readonly queue: string[] = [];
  private waiters: Waiter[] = [];
  private stopping = false;
  private stderrLog: MaskingStream | undefined;
  private log: AppendQueue | undefined;
  private readonly changeListeners: ((p: Participant) => void)[] = [];

  private constructor(private readonly spec: ParticipantSpec) {
    this.id = spec.id;
    this.role = spec.role;
    this.owner = spec.owner;
    this.cwd = spec.cwd;
    const file = spec.stderrLog;
    if (file !== undefined) {
      const log = new AppendQueue(file);
      this.log = log;
      this.stderrLog = new MaskingStream(spec.secrets, (text) => {
        log.append(text);
      });
    }
  }

  /**
   * Creates the participant and starts it in the background; `ready` settles when its first turn
   * has started (or it failed to get there).
   */
  static launch(
    spec: ParticipantSpec,
    onChange?: (p: Participant) => void,
  ): { participant: Participant; ready: Promise<void> } {
    const participant = new Participant(spec);
    if (onChange) participant.changeListeners.push(onChange);
    return { participant, ready: participant.start() };
  }

  get status(): ParticipantStatus {
    return this.statusValue;
  }

  get pid(): number | undefined {
    return this.client?.pid;
  }

  get error(): string | undefined {
    return this.errorText;
  }

  /** Whether the participant is still doing work (starting, in a turn or with queued messages). */
  get busy(): boolean {
    return (
      this.statusValue === 'starting' ||
      (this.statusValue === 'running' && (this.turnActive || this.queue.length > 0))
    );
  }

  get finished(): boolean {
    return (
      this.statusValue === 'failed' ||
      this.statusValue === 'stopped' ||
      this.statusValue === 'ended'
    );
  }

  info(): ParticipantInfo {
    const out: {
      -readonly [K in keyof ParticipantInfo]: ParticipantInfo[K];
    } = {
      participant: this.id,
      role: this.role,
      status: this.statusValue,
      owner: this.owner,
      cwd: this.cwd,
      started: this.started,
      queued_messages: this.queue.length,
    };
    const pid = this.pid;
    if (pid !== undefined) out.pid = pid;
    if (this.endedAt !== undefined) out.ended = this.endedAt;
    if (this.finalMessage !== undefined) out.final_message = this.finalMessage;
    if (this.failedServers.length > 0) out.failed_servers = this.failedServers;
    if (this.errorText !== undefined) out.error = this.errorText;
    if (this.spec.resume !== undefined) out.resumed_from = this.spec.resume.from;
    return out;
  }

  // methods rather than fields, for state that changes while an await is pending
  private isStopping(): boolean {
    return this.stopping;
  }

  private isFinished(): boolean {
    return this.finished;
  }

  private mask(text: string): string {
    return maskSecrets(text, this.spec.secrets);
  }

  private setStatus(status: ParticipantStatus): void {
    this.statusValue = status;
    if (this.finished) this.endedAt ??= new Date().toISOString();
    for (const listener of this.changeListeners) listener(this);
    if (!this.busy) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
  }

  private fail(message: string): void {
    if (this.finished) return;
    this.errorText = this.mask(message);
    this.turnActive = false;
    this.setStatus('failed');
    // a failed participant keeps no Codex process: nothing could stop it or count it any more
    void this.client?.close(1000).catch(() => undefined);
  }

  private stderrTail(): string {
    const tail = (this.client?.stderrTail ?? '').slice(-STDERR_TAIL_CHARS).trim();
    return tail === '' ? '' : `; stderr: ${tail}`;
  }

  private async start(): Promise<void> {
    const spec = this.spec;
    // the lifecycle wait bounds everything up to the first turn: initialize, thread/start, MCP startup
    const deadline = Date.now() + spec.lifecycleWaitSec * 1000;
    const abandoned = (what: string): MeshError =>
      new MeshError(
        'failed',
        `MCP startup of participant ${spec.id} (role ${spec.role}) was not ready within its lifecycle wait of ${spec.lifecycleWaitSec} s${what}; the participant was abandoned`,
      );
    try {
      const client = await AppServerClient.start({
        codexBin: spec.codexBin,
        codexHome: spec.home,
        env: spec.env,
        ...(spec.masks !== undefined ? { masks: spec.masks } : {}),
        ...(spec.view !== undefined ? { view: spec.view } : {}),
        cwd: spec.cwd,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        clientInfo: { name: 'codex-mmo', title: 'codex-mmo participant', version: '1' },
        approvals: spec.approvals ?? (() => 'decline'),
        onStderr: (chunk) => {
          this.stderrLog?.push(chunk);
        },
        ...(spec.onSpawn !== undefined ? { onSpawn: spec.onSpawn } : {}),
      });
      this.client = client;
      void client.exited.then((exit) => {
        this.onExit(exit.code, exit.signal);
      });
      client.onNotification((n) => {
        spec.onNotification?.(n);
        this.onNotification(n);
      });
      if (this.stopping) throw new MeshError('failed', 'stopped while starting');
      this.setStatus('starting');
      // thread/start returns once required MCP servers are up; bound it by the lifecycle wait
      const wait = Math.max(1, deadline - Date.now());
      const thread = await (
        spec.resume !== undefined
          ? client.resumeThread({ cwd: spec.cwd, threadId: spec.resume.thread }, wait)
          : client.startThread({ cwd: spec.cwd }, wait)
      ).catch((error: unknown) => {
        const timedOut = (error as { code?: unknown }).code === 'timeout';
        throw timedOut
          ? abandoned('')
          : new MeshError(
              'failed',
              `participant ${spec.id} (role ${spec.role}) could not start: ${describeError(error)}`,
            );
      });
      this.threadId = thread.thread.id;
      // servers that are not required start in the background: wait for them as well
      const servers = spec.servers ?? [];
      const statuses = await client.waitForMcpStartup(
        thread.thread.id,
        servers,
        Math.max(0, deadline - Date.now()),
      );
      const pending = servers.filter((s) => (statuses[s]?.status ?? 'starting') === 'starting');
      if (pending.length > 0) throw abandoned(` (still starting: ${pending.join(', ')})`);
      this.failedServers = servers.flatMap((server) => {
        const status = statuses[server];
        return status === undefined || status.status === 'ready'
          ? []
          : [{ server, error: this.mask(status.error ?? status.status) }];
      });
      if (this.isStopping()) throw new MeshError('failed', 'stopped while starting');
      await this.beginTurn(spec.task);
    } catch (error) {
      const message =
        error instanceof MeshError
          ? error.message
          : `participant ${spec.id} (role ${spec.role}) could not start: ${describeError(error)}`;
      const full = this.mask(`${message}${this.stderrTail()}`);
      if (!this.stopping) this.fail(full);
      await this.client?.close(500).catch(() => undefined);
      if (this.stopping && !this.finished) this.setStatus('stopped');
      throw new MeshError('failed', this.mask(message));
    }
  }

  private async beginTurn(text: string): Promise<void> {
    const client = this.client;
    const threadId = this.threadId;
    if (client === undefined || threadId === undefined) {
      throw new MeshError('failed', `participant ${this.id} is not running`);
    }
    this.turnActive = true;
    this.turnMessages = [];
    this.setStatus('running');
    try {
      await client.startTurn(threadId, text);
    } catch (error) {
      this.turnActive = false;
      if (!this.isFinished()) this.setStatus('idle');
      throw new MeshError(
        'failed',
        this.mask(`participant ${this.id} could not start a turn: ${describeError(error)}`),
      );
    }
  }

  private onNotification(n: ServerNotification): void {
    if (this.threadId === undefined || n.params.threadId !== this.threadId) return;
    if (n.method === 'item/completed') {
      const item = n.params.item as { type?: unknown; text?: unknown } | undefined;
      if (item?.type === 'agentMessage' && typeof item.text === 'string') {
        this.turnMessages.push(item.text);
      }
      return;
    }
    if (n.method !== 'turn/completed') return;
    const turn = n.params.turn as TurnInfo | undefined;
    this.turnActive = false;
    const last = this.turnMessages.at(-1);
    if (last !== undefined) this.finalMessage = last;
    if (turn?.status === 'failed') {
      this.errorText = this.mask(`last turn failed: ${turn.error?.message ?? 'no details'}`);
    } else {
      this.errorText = undefined;
    }
    if (this.finished) return;
    if (this.queue.length > 0) {
      const next = this.queue.splice(0, this.queue.length).join('\n\n');
      this.beginTurn(next).catch((error: unknown) => {
        this.fail(describeError(error));
      });
      return;
    }
    this.setStatus('idle');
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.stderrLog?.end();
    if (this.finished) return;
    if (this.stopping) {
      this.turnActive = false;
      this.setStatus('stopped');
      return;
    }
    this.fail(
      `codex app-server of participant ${this.id} exited unexpectedly (${signal ?? `code ${String(code)}`})${this.stderrTail()}`,
    );
  }

  /** Delivers a message: a new turn when idle, queued behind the current turn otherwise. */
  async send(message: string): Promise<'turn' | 'queued'> {
    if (this.finished) {
      throw new MeshError(
        'failed',
        `participant ${this.id} has ${this.statusValue}; it takes no messages`,
      );
    }
    if (this.statusValue === 'starting' || this.turnActive) {
      this.queue.push(message);
      this.setStatus(this.statusValue);
      return 'queued';
    }
    await this.beginTurn(message);
    return 'turn';
  }

  /** Resolves true once the participant is no longer busy, false when `timeoutMs` passed first. */
  waitIdle(timeoutMs: number): Promise<boolean> {
    if (!this.busy) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(wake);
    });
  }

  /** Ends the app-server and its process group; the participant becomes `stopped`. */
  async stop(): Promise<void> {
    if (this.finished) return;
    this.stopping = true;
    this.queue.length = 0;
    const client = this.client;
    if (client !== undefined) await client.close(1000).catch(() => undefined);
    this.turnActive = false;
    if (!this.isFinished()) this.setStatus('stopped');
    await this.log?.flushed();
  }
}
