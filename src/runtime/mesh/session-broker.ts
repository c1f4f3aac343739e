/**
 * The session broker: runs inside the `codex-mmo run`/`exec` process that supervises a session,
 * listens on the session's Unix socket, and owns every participant of the session. Each
 * `mesh serve` process (one per Codex process) connects and forwards its tool calls; the broker
 * checks them against the caller's grants, starts participants with their own rendered home and
 * only their own process's variables, and stops a caller's participants when its mesh server goes
 * away and all of them when the session ends. Credential values stay in this process's memory.
 * A connection is identified by the mesh credential it presents (issued here for the session root
 * and for each participant), never by the role or participant id it claims.
 */
import { unlink } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';

import {
  answerFromTui,
  watchFeed,
  type RootApprovalFeed,
} from '../approvals/root-approval-feed.js';
import type { ApprovalPolicy } from '../codex/app-server-client.js';
import type { ServerNotification } from '../codex/app-server-protocol.js';
import { NEWEST_CODEX, type CodexVersionFacts } from '../../config/codex/codex-versions.js';
import { renderProcess } from '../../config/compile/render-process.js';
import type { ReadDeny } from '../../config/compile/session-boundary.js';
import type { MeshLaunch, RenderedHome } from '../../config/compile/types.js';
import { formatDiagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { describeError } from '../../foundation/errors.js';
import type { ThreadAttribution } from '../gateway/relay-connection.js';
import type { SessionGateway } from '../gateway/session-gateway.js';
import type { Environment } from '../../foundation/paths/directories.js';
import type { ResolvedPlan, ResolvedProcess, ResolvedRole } from '../../config/profile/types.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import { removeAuth, writeProcessHome } from '../session/codex-home.js';
import { absentMountPoints } from '../session/sandbox-leftovers.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { findProcess, processEnvironment } from '../session/process-env.js';
import type { Snapshot } from '../../config/snapshot/types.js';
import { authorize, roleOf, visibleRoles, type MeshAction } from './authorize.js';
import { meshLaunchFor } from './mesh-command.js';
import { checkParticipantCwd } from './participant-cwd.js';
import { SESSION_MARKER_ENV } from '../../foundation/process/session-marker.js';
import { MESH_TOKEN_ENV, MeshCredentials, type MeshIdentity } from './mesh-credential.js';
import {
  LineDecoder,
  MESH_SERVER_NAME,
  MeshError,
  encodeLine,
  type BrokerRequest,
  type MeshBackend,
  type MeshCaller,
  type ParticipantInfo,
  type SendResult,
  type SpawnArgs,
  type WaitResult,
  MAX_HELLO_LINE_LENGTH,
  MAX_LINE_LENGTH,
} from '../protocol/mesh-protocol.js';
import type { Participant } from './participant.js';
import { DEFAULT_MAX_PARTICIPANTS } from './participant-cap.js';
import { listenPrivateSocket } from '../../foundation/process/private-socket.js';

export interface BrokerOptions {
  readonly sessionId: string;
  readonly sessionDir: string;
  readonly socketPath: string;
  readonly snapshot: Snapshot;
  readonly plan: ResolvedPlan;
  readonly launchEnv: Environment;
  readonly credentials: CredentialSource;
  /** The user's home, for `~/` in server commands. */
  readonly home: string;
  /** The operator's Codex home; only its `auth.json` is copied. */
  readonly baseCodexHome: string;
  readonly codexBin: string;
  /** What each participant's environment gains to run `codexBin` (the npm launcher's variables). */
  readonly codexEnv?: Readonly<Record<string, string>>;
  /** `codexBin`'s row of the version table: participants' homes hold only keys it accepts. */
  readonly codex?: CodexVersionFacts;
  /** The command prefix that runs the codex-mmo CLI (for participants' own `mmo_mesh`). */
  readonly cli: MeshLaunch;
  /**
   * The session's working directory: participants spawned without `cwd` work there, and any
   * `cwd` given must be it or below it.
   */
  readonly defaultCwd: string;
  /** The session's Tool MCP gateway: participants reach their servers through it. */
  readonly gateway?: SessionGateway;
  /** What every participant's shell may not read (rendered into its permission profile). */
  readonly readDeny?: ReadDeny;
  /** Directories no participant may work in or above: config, data and state dir, base Codex home. */
  readonly forbiddenDirs?: readonly string[];
  /** Mark participants and their servers with `CODEX_MMO_SESSION=<sessionId>` (session-marker.ts). */
  readonly markProcesses?: boolean;
  /** Most participants running at once in the session (default DEFAULT_MAX_PARTICIPANTS). */
  readonly maxParticipants?: number;
  /** Called whenever a participant appears or changes status. */
  readonly onChange?: (participants: readonly ParticipantInfo[]) => void;
  /** Adapts a participant's rendered home before it is written (the session's model wire). */
  readonly prepareHome?: (rendered: RenderedHome, participant: string) => RenderedHome;
  /**
   * The answer policy of a participant's approval requests (the session's approval queue);
   * without it they are declined.
   */
  readonly approvalsFor?: (
    participant: string,
    role: string,
    secrets: readonly string[],
  ) => ApprovalPolicy;
  /** Receives every app-server notification of every participant (the session's event log). */
  readonly onNotification?: (participant: string, role: string, n: ServerNotification) => void;
  /**
   * The model wire's role of a Codex thread (undefined: not seen). Given, every call is checked
   * against the spawn/control lists of its calling thread's role, and a call whose thread is
   * not attributed to a role of the calling process is refused.
   */
  readonly roleOfThread?: (threadId: string) => ThreadAttribution | undefined;
  /**
   * For an interactive root: the approval queue its `mmo_mesh` server may watch and answer, so
   * participants' requests are put to the person at the TUI too. Without it the root's server is
   * refused `watch_approvals`.
   */
  readonly rootApprovals?: RootApprovalFeed;
}

const ROOT_OWNER = 'root';

export { DEFAULT_MAX_PARTICIPANTS };

const FORBIDDEN_NAMES = ['config dir', 'data dir', 'state dir', 'base Codex home'];

function text(params: Record<string, unknown>, key: string, required = true): string | undefined {
  const value = params[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new MeshError('invalid', `argument '${key}' must be a non-empty string`);
  }
  return value;
}

function describeIdentity(identity: MeshIdentity): string {
  return identity.participant === ROOT_OWNER
    ? `the session root process (role '${identity.process}')`
    : `participant '${identity.participant}' (role '${identity.process}')`;
}

/** The refusal for a connection without a valid credential. */
export const NO_CREDENTIAL_MESSAGE =
  `this connection did not present the session's credential (${MESH_TOKEN_ENV} of a Codex ` +
  'process of this session); mmo_mesh serves only the Codex processes the session started';

export class SessionBroker {
  private readonly participants = new Map<string, Participant>();
  private readonly connections = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private readonly tokens = new MeshCredentials();
  private readonly rootTokenValue: string;
  private readonly participantMountPoints = new Set<string>();
  private counter = 0;
  private reserved = 0;
  private closing = false;
  private server: Server | undefined;

  private constructor(private readonly options: BrokerOptions) {
    this.rootTokenValue = this.tokens.issue({
      process: options.plan.root,
      participant: ROOT_OWNER,
    });
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

  /** A method rather than the field, for a state that changes while an await is pending. */
  /**
   * Sandbox mount points absent from participants' working directories when they started; the
   * session removes the empty ones when it ends.
   */
  mountPoints(): string[] {
    return [...this.participantMountPoints];
  }

  private isClosing(): boolean {
    return this.closing;
  }

  private changed(): void {
    this.options.onChange?.(this.list());
  }

  private checkCaller(caller: MeshCaller): void {
    const profile = this.options.snapshot.profile;
    if (roleOf(profile, caller.process) === undefined) {
      throw new MeshError(
        'refused',
        `role '${caller.process}' is not part of profile '${profile.name}'`,
      );
    }
    if (caller.participant === ROOT_OWNER) {
      if (caller.process !== this.options.plan.root) {
        throw new MeshError(
          'refused',
          `the session root process runs role '${this.options.plan.root}', not '${caller.process}'`,
        );
      }
      return;
    }
    const participant = this.participants.get(caller.participant);
    if (participant?.role !== caller.process) {
      throw new MeshError(
        'refused',
        `'${caller.participant}' is not a participant of role '${caller.process}' in this session`,
      );
    }
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    let caller: MeshCaller | undefined;
    let unwatch: (() => void) | undefined;
    const reply = (value: unknown): void => {
      if (!socket.destroyed) socket.write(encodeLine(value));
    };
    const decoder = new LineDecoder(
      (value) => {
        if (typeof value !== 'object' || value === null) return;
        const request = value as BrokerRequest;
        if (typeof request.id !== 'number' || typeof request.method !== 'string') return;
        const params =
          typeof request.params === 'object' && (request.params as unknown) !== null
            ? request.params
            : {};
        void (async () => {
          try {
            if (request.method === 'hello') {
              if (caller !== undefined) throw new MeshError('invalid', 'hello was already sent');
              const candidate = this.identify(params);
              this.checkCaller(candidate);
              caller = candidate;
              decoder.setMaxLineLength(MAX_LINE_LENGTH);
              this.connections.set(
                caller.participant,
                (this.connections.get(caller.participant) ?? 0) + 1,
              );
              const role = roleOf(this.options.snapshot.profile, caller.process);
              reply({
                id: request.id,
                result: {
                  session: this.options.sessionId,
                  role: caller.process,
                  spawn: role?.spawn ?? [],
                  control: role?.control ?? [],
                },
              });
              return;
            }
            if (caller === undefined) throw new MeshError('invalid', 'send hello first');
            if (request.method === 'watch_approvals') {
              const feed = this.rootFeed(caller);
              reply({ id: request.id, result: { watching: true } });
              unwatch ??= watchFeed(feed, {
                requested: (r) => {
                  reply({ push: 'approval.requested', request: r });
                },
                answered: (id) => {
                  reply({ push: 'approval.answered', request: id });
                },
              });
              return;
            }
            if (request.method === 'answer_approval') {
              reply({ id: request.id, result: this.answerApproval(caller, params) });
              return;
            }
            reply({ id: request.id, result: await this.dispatch(caller, request.method, params) });
          } catch (error) {
            const mesh =
              error instanceof MeshError ? error : new MeshError('failed', describeError(error));
            reply({ id: request.id, error: { code: mesh.code, message: mesh.message } });
          }
        })();
      },
      undefined,
      {
        // before hello a client is unauthenticated: a short line limit, then it is cut off
        maxLineLength: MAX_HELLO_LINE_LENGTH,
        onOverflow: () => socket.destroy(),
      },
    );
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.sockets.delete(socket);
      unwatch?.();
      if (caller === undefined) return;
      const left = (this.connections.get(caller.participant) ?? 1) - 1;
      this.connections.set(caller.participant, left);
      if (left <= 0) void this.stopOwnedBy(caller.participant);
    });
  }

  /**
   * The caller a `hello` presents a credential for. A missing or unknown credential is refused;
   * so is a claimed role or participant id that is not the credential's own.
   */
  private identify(params: Record<string, unknown>): MeshCaller {
    const token = params.token;
    const identity = typeof token === 'string' ? this.tokens.identify(token) : undefined;
    if (identity === undefined) throw new MeshError('refused', NO_CREDENTIAL_MESSAGE);
    const claimed = {
      process: text(params, 'process', false) ?? identity.process,
      participant: text(params, 'participant', false) ?? identity.participant,
    };
    if (claimed.process !== identity.process || claimed.participant !== identity.participant) {
      // a claim that names nobody of this session gets the same answer as before credentials
      this.checkCaller(claimed);
      throw new MeshError(
        'refused',
        `this connection's credential belongs to ${describeIdentity(identity)}, not to ${describeIdentity(claimed)}`,
      );
    }
    return { process: identity.process, participant: identity.participant };
  }

  /**
   * The caller acting with its calling thread's role: without the model wire, the process root;
   * with it, the role the wire attributed the call's thread to, which must be a role of the
   * calling process. Anything else is refused.
   */
  private acting(caller: MeshCaller, params: Record<string, unknown>): MeshCaller {
    const roleOfThread = this.options.roleOfThread;
    if (roleOfThread === undefined) return caller;
    const thread = typeof params.thread === 'string' && params.thread !== '' ? params.thread : '';
    const seen = thread === '' ? undefined : roleOfThread(thread);
    const process = this.options.plan.processes.find((p) => p.root === caller.process);
    const role = seen?.process === caller.participant ? seen.role : null;
    if (role === null || process?.roles.includes(role) !== true) {
      const why =
        thread === ''
          ? 'the call names no calling thread'
          : seen === undefined
            ? `its thread ${thread} is not known to the session's model wire`
            : seen.process !== caller.participant
              ? `its thread ${thread} belongs to another Codex process`
              : `its thread ${thread} could not be attributed to a role`;
      throw new MeshError(
        'refused',
        `mmo_mesh checks each call against the calling thread's role, and ${why}; the call is refused`,
      );
    }
    return { ...caller, role };
  }

  /** The approval feed, for the session root of an interactive run only. */
  private rootFeed(caller: MeshCaller): RootApprovalFeed {
    const feed = this.options.rootApprovals;
    if (caller.participant !== ROOT_OWNER || feed === undefined) {
      throw new MeshError(
        'refused',
        'only the session root of an interactive run is asked about approvals',
      );
    }
    return feed;
  }

  private answerApproval(caller: MeshCaller, params: Record<string, unknown>): unknown {
    const feed = this.rootFeed(caller);
    const id = text(params, 'request') ?? '';
    const decision = params.decision;
    if (decision !== 'approve' && decision !== 'deny') {
      throw new MeshError('invalid', "argument 'decision' must be 'approve' or 'deny'");
    }
    const result = answerFromTui(feed, id, decision);
    if (!result.ok) {
      throw new MeshError(result.reason === 'answered' ? 'refused' : 'not-found', result.message);
    }
    return { answer: result.answer };
  }

  private dispatch(
    from: MeshCaller,
    method: string,
    params: Record<string, unknown>,
  ): Promise<unknown> {
    const caller = this.acting(from, params);
    switch (method) {
      case 'spawn': {
        const cwd = text(params, 'cwd', false);
        const role = text(params, 'role') ?? '';
        const task = text(params, 'task') ?? '';
        return this.spawn(caller, cwd === undefined ? { role, task } : { role, task, cwd });
      }
      case 'send':
        return this.send(caller, text(params, 'participant') ?? '', text(params, 'message') ?? '');
      case 'wait': {
        const timeout = params.timeout_sec;
        if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0))) {
          throw new MeshError('invalid', "argument 'timeout_sec' must be a positive number");
        }
        return this.wait(caller, text(params, 'participant') ?? '', timeout);
      }
      case 'list':
        return Promise.resolve(this.listFor(caller));
      case 'stop':
        return this.stop(caller, text(params, 'participant') ?? '');
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
    const max = this.options.maxParticipants ?? DEFAULT_MAX_PARTICIPANTS;
    const running = [...this.participants.values()].filter((p) => !p.finished).length;
    // spawns still being prepared count too, so concurrent calls cannot pass the cap together
    if (running + this.reserved >= max) {
      throw new MeshError(
        'refused',
        `the session already runs ${running + this.reserved} participants, its limit (--max-participants ${max}); stop one with stop_participant first`,
      );
    }
    this.reserved++;
    const slot = { held: true };
    const release = (): void => {
      if (slot.held) this.reserved--;
      slot.held = false;
    };
    try {
      return await this.spawnReserved(caller, args, process, resolved, release);
    } finally {
      release();
    }
  }

  private async spawnReserved(
    caller: MeshCaller,
    args: SpawnArgs,
    process: ResolvedProcess,
    resolved: ResolvedRole,
    /** Called once the participant is listed (it counts towards the cap from then on). */
    listed: () => void,
  ): Promise<ParticipantInfo> {
    const { snapshot, plan } = this.options;
    const cwd = await checkParticipantCwd(
      args.cwd ?? this.options.defaultCwd,
      this.options.defaultCwd,
      (this.options.forbiddenDirs ?? []).map((path, i) => ({
        name: FORBIDDEN_NAMES[i] ?? 'codex-mmo directory',
        path,
      })),
    );
    // what the sandbox may make in the participant's directory, absent now, goes with the session
    for (const path of await absentMountPoints(
      cwd,
      (this.options.codex ?? NEWEST_CODEX).sandboxMountPoints,
    )) {
      this.participantMountPoints.add(path);
    }
    const id = `${args.role}-${++this.counter}`;
    const homeDir = join(this.options.sessionDir, 'homes', id);
    const environment = processEnvironment(
      plan,
      process,
      snapshot.base,
      this.options.launchEnv,
      this.options.credentials,
      homeDir,
    );
    const errors = environment.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      throw new MeshError(
        'failed',
        `cannot start a participant of role '${args.role}': ${errors.map(formatDiagnostic).join('; ')}`,
      );
    }
    const direct = renderProcess(snapshot, plan, args.role, {
      home: this.options.home,
      mesh: meshLaunchFor(this.options.cli, this.options.sessionDir, args.role, id),
      ...(this.options.codex !== undefined ? { codex: this.options.codex } : {}),
      ...(this.options.readDeny !== undefined
        ? { boundary: { deny: this.options.readDeny, cwd } }
        : {}),
      ...(this.options.markProcesses === true ? { sessionMarker: this.options.sessionId } : {}),
    });
    const relayed = this.options.gateway?.prepareProcess({
      processId: id,
      process,
      rendered: direct,
      // marked before the gateway sees it, so the participant's servers carry the marker too
      env:
        this.options.markProcesses === true
          ? { ...environment.env, [SESSION_MARKER_ENV]: this.options.sessionId }
          : environment.env,
      cwd,
    });
    const rendered = relayed?.rendered ?? direct;
    const processEnv = relayed?.env ?? environment.env;
    try {
      const home = this.options.prepareHome?.(rendered, id) ?? rendered;
      await writeProcessHome(home, homeDir, this.options.baseCodexHome);
    } catch (error) {
      throw new MeshError('failed', `cannot write the home of ${id}: ${describeError(error)}`);
    }
    const token = process.mesh
      ? this.tokens.issue({ process: args.role, participant: id })
      : undefined;
    const launched = { ...processEnv, ...this.options.codexEnv };
    const marked =
      this.options.markProcesses === true
        ? { ...launched, [SESSION_MARKER_ENV]: this.options.sessionId }
        : launched;
    const env = token === undefined ? marked : { ...marked, [MESH_TOKEN_ENV]: token };
    const secrets = [
      ...environment.secrets,
      ...(relayed?.tokens ?? []),
      ...this.options.credentials.secretValues(),
      ...(token === undefined ? [] : [token]),
    ];
    // loaded on the first spawn, so a session that spawns nobody never loads the app-server client
    const { Participant: ParticipantProcess } = await import('./participant.js');
    const approvals = this.options.approvalsFor?.(id, args.role, secrets);
    const onNotification = this.options.onNotification;
    const { participant, ready } = ParticipantProcess.launch(
      {
        ...(approvals !== undefined ? { approvals } : {}),
        ...(onNotification !== undefined
          ? {
              onNotification: (n: ServerNotification) => {
                onNotification(id, args.role, n);
              },
            }
          : {}),
        id,
        role: args.role,
        owner: caller.participant,
        task: args.task,
        cwd,
        home: homeDir,
        env,
        codexBin: this.options.codexBin,
        lifecycleWaitSec: resolved.lifecycle_wait_sec,
        servers: [
          ...Object.keys(resolved.grants),
          ...(resolved.mesh_tool_timeout_sec !== null ? [MESH_SERVER_NAME] : []),
        ],
        secrets,
        stderrLog: join(this.options.sessionDir, 'logs', `${id}.stderr.log`),
      },
      (p) => {
        // a participant that ended can no longer call the mesh, nor needs its auth.json copy
        if (p.finished) {
          this.tokens.revoke(id);
          void this.options.gateway?.closeProcess(id);
          void removeAuth(homeDir);
        }
        this.changed();
      },
    );
    this.participants.set(id, participant);
    listed();
    this.changed();
    try {
      await ready;
    } catch (error) {
      const message = error instanceof MeshError ? error.message : describeError(error);
      throw new MeshError('failed', maskSecrets(message, secrets));
    }
    if (this.isClosing() || (this.connections.get(caller.participant) ?? 1) <= 0) {
      await participant.stop();
      throw new MeshError('unavailable', 'the caller went away while the participant started');
    }
    return participant.info();
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

  private listFor(caller: MeshCaller): { participants: ParticipantInfo[] } {
    const visible = visibleRoles(this.options.snapshot.profile, caller.role ?? caller.process);
    return {
      participants: [...this.participants.values()]
        .filter((p) => visible.has(p.role) || p.owner === caller.participant)
        .map((p) => p.info()),
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
