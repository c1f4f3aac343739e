/**
 * The session broker: runs inside the `codex-mmo run`/`exec` process that supervises a session,
 * listens on the session's Unix socket, and owns every participant of the session. Each
 * `mesh serve` process (one per Codex process) connects and forwards its tool calls; the broker
 * checks them against the caller's grants, starts participants with their own rendered home and
 * only their own process's variables, and stops a caller's participants when its mesh server goes
 * away and all of them when the session ends. Credential values stay in this process's memory.
 * A connection is identified by the mesh credential it presents (issued here for the session root
 * and for each participant), never by the role or participant id it claims; a connection whose
 * `hello` is not accepted in time, or past the cap of those waiting, is closed (connection-limits).
 */
import { unlink } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

import { findProcess } from '../session/process-env.js';
import { authorize, roleOf, visibleRoles, type MeshAction } from './authorize.js';
import { answerApproval, pushApprovals, rootFeed } from './approval-routing.js';
import type { BrokerOptions } from './broker-options.js';
import { serveConnection } from './broker-connection.js';
import {
  actingCaller,
  checkCaller,
  identifyCaller,
  ROOT_OWNER,
  type KnownCallers,
} from './caller-auth.js';
import { MeshCredentials } from './mesh-credential.js';
import { stringArg } from './mesh-args.js';
import {
  MeshError,
  type MeshBackend,
  type MeshCaller,
  type ParticipantInfo,
  type ParticipantList,
  type SendResult,
  type SpawnArgs,
  type WaitResult,
} from '../protocol/mesh-protocol.js';
import { previousFor, resumeTarget } from './previous-participants.js';
import type { Participant } from './participant.js';
import { DEFAULT_MAX_PARTICIPANTS } from './participant-cap.js';
import { spawnRefusal, type BudgetRefusal, type TeamBudget } from '../session/team-budget.js';
import { spawnParticipant, type SpawnHost } from './spawn-participant.js';
import { listenPrivateSocket } from '../../foundation/process/private-socket.js';
import { ConnectionLimits } from '../../foundation/process/connection-limits.js';
import { duplexPair } from '../../foundation/net/duplex-pair.js';

export type { BrokerOptions } from './broker-options.js';
export { NO_CREDENTIAL_MESSAGE } from './caller-auth.js';
export { DEFAULT_MAX_PARTICIPANTS };

/** The broker's socket's name in a flood report. */
export const BROKER_LISTENER = 'mesh-broker';

export class SessionBroker {
  private readonly participants = new Map<string, Participant>();
  private readonly connections = new Map<string, number>();
  private readonly sockets = new Set<Duplex>();
  private readonly tokens = new MeshCredentials();
  private readonly rootTokenValue: string;
  private readonly participantMountPoints = new Set<string>();
  /** Participants of the resumed session already continued: earlier id → new id. */
  private readonly resumed = new Map<string, string>();
  private counter = 0;
  private reserved = 0;
  private closing = false;
  private server: Server | undefined;
  private readonly limits: ConnectionLimits;
  /** Who may call: the profile's roles, the session root and the participants so far. */
  private readonly known: KnownCallers;
  /** The broker state a spawn reads and changes. */
  private readonly spawnHost: SpawnHost;

  private constructor(private readonly options: BrokerOptions) {
    this.limits = new ConnectionLimits(BROKER_LISTENER, options.limits);
    this.rootTokenValue = this.tokens.issue({
      process: options.plan.root,
      participant: ROOT_OWNER,
    });
    this.known = {
      profile: options.snapshot.profile,
      root: options.plan.root,
      participantRole: (id) => this.participants.get(id)?.role,
    };
    this.spawnHost = {
      options,
      tokens: this.tokens,
      mountPoints: this.participantMountPoints,
      nextId: (role) => `${role}-${++this.counter}`,
      add: (id, participant) => {
        this.participants.set(id, participant);
      },
      changed: () => {
        this.changed();
      },
      gone: (owner) => this.isClosing() || (this.connections.get(owner) ?? 1) <= 0,
    };
  }

  /** Starts listening on `options.socketPath` (a stale socket file there is replaced). */
  static async start(options: BrokerOptions): Promise<SessionBroker> {
    const broker = new SessionBroker(options);
    broker.server = await listenPrivateSocket(options.socketPath, (socket) => {
      broker.accept(socket);
    });
    return broker;
  }

  get socketPath(): string {
    return this.options.socketPath;
  }

  /**
   * The session root process's mesh credential: for that process's environment
   * (`CODEX_MMO_MESH_TOKEN`) only, never for a file or output.
   */
  get rootToken(): string {
    return this.rootTokenValue;
  }

  /** Every participant of the session so far. */
  list(): ParticipantInfo[] {
    return [...this.participants.values()].map((p) => p.info());
  }

  /** A backend for an in-process caller (the same checks as a socket caller). */
  backendFor(caller: MeshCaller): MeshBackend {
    this.checkCaller(caller);
    return {
      spawn: (args) => this.spawn(caller, args),
      send: (participant, message) => this.send(caller, participant, message),
      wait: (participant, timeoutSec) => this.wait(caller, participant, timeoutSec),
      list: () => Promise.resolve(this.listFor(caller)),
      stop: (participant) => this.stop(caller, participant),
    };
  }

  /** Stops every participant, closes the socket and removes it. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.participants.values()].map((p) => p.stop()));
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    if (server !== undefined) {
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    }
    await unlink(this.options.socketPath).catch(() => undefined);
  }

  /**
   * Sandbox mount points absent from participants' working directories when they started; the
   * session removes the empty ones when it ends.
   */
  mountPoints(): string[] {
    return [...this.participantMountPoints];
  }

  /** A method rather than the field, for a state that changes while an await is pending. */
  private isClosing(): boolean {
    return this.closing;
  }

  private changed(): void {
    this.options.onChange?.(this.list());
  }

  private checkCaller(caller: MeshCaller): void {
    checkCaller(this.known, caller);
  }

  /**
   * A connection for a caller in this process (the supervisor's own `mmo_mesh`): the socket's
   * protocol and checks, without the socket, so there is no listener to verify. None once the
   * broker is closing.
   */
  connectLocal(): Duplex | undefined {
    if (this.closing) return undefined;
    const [client, server] = duplexPair();
    this.serve(server);
    return client;
  }

  private accept(socket: Socket): void {
    this.limits.admit(socket);
    this.serve(socket, socket);
  }

  /** Serves one connection; `socket`, a listener's, counts against its limits until `hello`. */
  private serve(stream: Duplex, socket?: Socket): void {
    this.sockets.add(stream);
    serveConnection(
      stream,
      {
        identify: (params) => {
          const caller = identifyCaller(this.tokens, this.known, params);
          this.checkCaller(caller);
          if (socket !== undefined) this.limits.authenticated(socket);
          return caller;
        },
        opened: (caller) => {
          this.connections.set(
            caller.participant,
            (this.connections.get(caller.participant) ?? 0) + 1,
          );
          const role = roleOf(this.options.snapshot.profile, caller.process);
          return {
            session: this.options.sessionId,
            role: caller.process,
            spawn: role?.spawn ?? [],
            control: role?.control ?? [],
          };
        },
        watchApprovals: (caller) => {
          const feed = rootFeed(this.options.rootApprovals, caller);
          return (push) => pushApprovals(feed, push);
        },
        answerApproval: (caller, params) =>
          answerApproval(this.options.rootApprovals, caller, params),
        dispatch: (caller, method, params) => this.dispatch(caller, method, params),
        closed: (caller) => {
          const left = (this.connections.get(caller.participant) ?? 1) - 1;
          this.connections.set(caller.participant, left);
          if (left <= 0) void this.stopOwnedBy(caller.participant);
        },
      },
      () => this.sockets.delete(stream),
    );
  }

  private dispatch(
    from: MeshCaller,
    method: string,
    params: Record<string, unknown>,
  ): Promise<unknown> {
    const caller = actingCaller(this.options.plan, this.options.roleOfThread, from, params);
    switch (method) {
      case 'spawn': {
        const cwd = stringArg(params, 'cwd', false);
        const role = stringArg(params, 'role') ?? '';
        const task = stringArg(params, 'task') ?? '';
        const resume = stringArg(params, 'resume', false);
        return this.spawn(caller, {
          role,
          task,
          ...(cwd !== undefined ? { cwd } : {}),
          ...(resume !== undefined ? { resume } : {}),
        });
      }
      case 'send':
        return this.send(
          caller,
          stringArg(params, 'participant') ?? '',
          stringArg(params, 'message') ?? '',
        );
      case 'wait': {
        const timeout = params.timeout_sec;
        if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0))) {
          throw new MeshError('invalid', "argument 'timeout_sec' must be a positive number");
        }
        return this.wait(caller, stringArg(params, 'participant') ?? '', timeout);
      }
      case 'list':
        return Promise.resolve(this.listFor(caller));
      case 'stop':
        return this.stop(caller, stringArg(params, 'participant') ?? '');
      default:
        throw new MeshError('invalid', `unknown method '${method}'`);
    }
  }

  private target(caller: MeshCaller, id: string, action: MeshAction): Participant {
    const participant = this.participants.get(id);
    if (participant === undefined) {
      throw new MeshError(
        'not-found',
        `no participant '${id}' in this session; list_participants shows the ones you may reach`,
      );
    }
    const verdict = authorize(
      this.options.snapshot.profile,
      caller.role ?? caller.process,
      action,
      participant.role,
    );
    if (!verdict.ok) throw new MeshError('refused', verdict.message);
    return participant;
  }

  /**
   * Whether one more participant fits the session's budget. Spawns still being prepared count
   * too, so concurrent calls cannot pass a ceiling together; a Codex process is expected to take
   * the session's memory per Codex process so far.
   */
  private budgetRefusal(): BudgetRefusal | undefined {
    const running = [...this.participants.values()].filter((p) => !p.finished).length;
    const participants = running + this.reserved;
    const codex = participants + 1;
    const budget: TeamBudget = {
      participants: this.options.maxParticipants ?? DEFAULT_MAX_PARTICIPANTS,
      ...this.options.budget,
    };
    // memory is read from /proc only for a memory ceiling: most sessions have none
    const memory = budget.memory_mb === undefined ? undefined : this.options.memoryMb?.();
    return spawnRefusal(
      budget,
      {
        participants,
        codex_processes: codex,
        server_processes: 0,
        ...(memory !== undefined ? { memory_mb: memory } : {}),
      },
      // spawns still being prepared will take their share too
      memory === undefined ? 0 : (memory / codex) * (this.reserved + 1),
    );
  }

  private async spawn(caller: MeshCaller, args: SpawnArgs): Promise<ParticipantInfo> {
    if (this.closing) throw new MeshError('unavailable', 'the session is ending');
    const { snapshot, plan } = this.options;
    const verdict = authorize(snapshot.profile, caller.role ?? caller.process, 'spawn', args.role);
    if (!verdict.ok) throw new MeshError('refused', verdict.message);
    const process = findProcess(plan, args.role);
    const resolved = plan.roles[args.role];
    if (process === undefined || resolved === undefined) {
      throw new MeshError(
        'failed',
        `profile '${plan.profile}' has no participant process for role '${args.role}'`,
      );
    }
    // a participant of the resumed session is continued once, in its own role
    const earlier =
      args.resume === undefined
        ? undefined
        : resumeTarget(
            this.options.previous,
            args.resume,
            args.role,
            this.resumed,
            visibleRoles(snapshot.profile, caller.role ?? caller.process),
          );
    const refusal = this.budgetRefusal();
    if (refusal !== undefined) {
      this.options.onBudgetRefusal?.(refusal, caller);
      throw new MeshError('refused', refusal.message);
    }
    if (earlier !== undefined) this.resumed.set(earlier.participant, '');
    this.reserved++;
    const slot = { held: true };
    const release = (): void => {
      if (slot.held) this.reserved--;
      slot.held = false;
    };
    try {
      const info = await spawnParticipant(
        this.spawnHost,
        caller,
        args,
        process,
        resolved,
        release,
        earlier,
      );
      if (earlier !== undefined) this.resumed.set(earlier.participant, info.participant);
      return info;
    } catch (error) {
      if (earlier !== undefined) this.resumed.delete(earlier.participant);
      throw error;
    } finally {
      release();
    }
  }

  private async send(caller: MeshCaller, id: string, message: string): Promise<SendResult> {
    const participant = this.target(caller, id, 'send');
    const delivered = await participant.send(message);
    return { participant: id, status: participant.status, delivered };
  }

  private async wait(caller: MeshCaller, id: string, timeoutSec?: number): Promise<WaitResult> {
    const participant = this.target(caller, id, 'wait');
    const bound = this.options.plan.roles[participant.role]?.lifecycle_wait_sec ?? 1200;
    const seconds = Math.min(timeoutSec ?? bound, bound);
    const done = await participant.waitIdle(seconds * 1000);
    const info = participant.info();
    const out: { -readonly [K in keyof WaitResult]: WaitResult[K] } = {
      participant: id,
      role: info.role,
      status: info.status,
      timed_out: !done,
    };
    if (info.final_message !== undefined) out.final_message = info.final_message;
    if (info.error !== undefined) out.error = info.error;
    return out;
  }

  private listFor(caller: MeshCaller): ParticipantList {
    const visible = visibleRoles(this.options.snapshot.profile, caller.role ?? caller.process);
    const previous = previousFor(this.options.previous, visible, this.resumed);
    return {
      participants: [...this.participants.values()]
        .filter((p) => visible.has(p.role) || p.owner === caller.participant)
        .map((p) => p.info()),
      ...(previous !== undefined ? { previous } : {}),
    };
  }

  /** The participant and, transitively, every participant it started. */
  private descendants(id: string): Participant[] {
    const out: Participant[] = [];
    const visit = (owner: string): void => {
      for (const p of this.participants.values()) {
        if (p.owner === owner && !out.includes(p)) {
          out.push(p);
          visit(p.id);
        }
      }
    };
    visit(id);
    return out;
  }

  private async stop(caller: MeshCaller, id: string): Promise<ParticipantInfo> {
    const participant = this.target(caller, id, 'stop');
    await Promise.all([participant, ...this.descendants(id)].map((p) => p.stop()));
    return participant.info();
  }

  private async stopOwnedBy(owner: string): Promise<void> {
    await Promise.all(this.descendants(owner).map((p) => p.stop()));
  }
}
