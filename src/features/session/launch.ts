/**
 * Carries out a prepared session: creates the session directory and the root process's private
 * Codex home, starts the session broker (the `mmo_mesh` back end that owns participants), spawns
 * Codex with the built environment, keeps `session.json` current, and when Codex exits stops
 * every participant and records how the session ended. Signals are forwarded by the caller
 * through `RunningSession.signal`; a watchdog ends Codex and the participants should this process
 * be killed without the chance to do so itself.
 */
import type { ChildProcess } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

import { approvalSocketPath } from '../../runtime/approvals/approval-socket.js';
import { DEFAULT_APPROVAL_TIMEOUT_SEC } from '../../runtime/protocol/approval-types.js';
import { SessionSupervision } from '../../runtime/approvals/session-supervision.js';
import { MESH_SERVER_NAME } from '../../runtime/protocol/mesh-protocol.js';
import { startExecRoot, type ExecRoot } from './exec-app-server.js';
import { refusedEvent, unofferedRecord } from './refused-calls.js';
import {
  failureRequired,
  serverFailureDiagnostic,
  serverFailureEvent,
  withOwnWords,
} from './server-failures.js';
import type { ServerFailure } from '../../runtime/gateway/server-failure.js';
import type { ServerNotification } from '../../runtime/codex/app-server-protocol.js';
import { approvalGate } from '../../runtime/approvals/approval-gate.js';

import { NEWEST_CODEX, type CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { ReadDeny } from '../../config/compile/session-boundary.js';
import type { MeshLaunch } from '../../config/compile/types.js';
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { describeError } from '../../foundation/errors.js';
import {
  SessionGateway,
  driftDiagnostic,
  gatewaySocketPath,
} from '../../runtime/gateway/session-gateway.js';
import { MESH_TOKEN_ENV } from '../../runtime/mesh/mesh-credential.js';
import { SessionBroker } from '../../runtime/mesh/session-broker.js';
import type { ParticipantInfo } from '../../runtime/protocol/mesh-protocol.js';
import type { Environment } from '../../foundation/paths/directories.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { StoredSnapshot } from '../../config/snapshot/types.js';
import { clearEndedHomes, writeProcessHome } from '../../runtime/session/codex-home.js';
import {
  absentMountPoints,
  removeMountPointLeftovers,
} from '../../runtime/session/sandbox-leftovers.js';
import { removeSessionLeftovers, sessionSockets } from './session-leftovers.js';
import { MaskingStream, maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import type { SessionPlan } from './prepare-session.js';
import { spawnContained, type ContainedProcess } from '../../foundation/process/contained-spawn.js';
import { exitCodeOf } from '../../foundation/process/process-control.js';
import { endMarkedProcesses } from '../../foundation/process/session-marker.js';
import {
  isActiveStatus,
  type SessionProcess,
  type SessionRecord,
  type SessionStatus,
} from '../../runtime/session/session-record.js';
import {
  createSessionDir,
  sessionPaths,
  stopRequested,
  writeSessionRecord,
} from '../../runtime/session/session-store.js';
import { startWatchdog, type Watchdog } from './watchdog.js';
import { startSessionWire } from '../../runtime/model-wire/session-wire.js';
import type { ModelWire } from '../../runtime/model-wire/model-wire.js';
import type { SessionEvent } from '../../runtime/events/session-event.js';

/** Longest Unix socket path we use (the OS limit is 104–108 bytes). */
export const MAX_SOCKET_PATH = 100;

/** `<session>/mesh.sock`, or a short path in `tmpDir` when that would be too long. */
export function chooseSocketPath(sessionDir: string, sessionId: string, tmpDir: string): string {
  const inSession = join(sessionDir, 'mesh.sock');
  if (Buffer.byteLength(inSession) <= MAX_SOCKET_PATH) return inSession;
  return join(tmpDir, `codex-mmo-${sessionId}.sock`);
}

export interface LaunchContext {
  readonly stored: StoredSnapshot;
  readonly plan: ResolvedPlan;
  readonly launchEnv: Environment;
  readonly credentials: CredentialSource;
  readonly home: string;
  readonly baseCodexHome: string;
  readonly cli: MeshLaunch;
  /** The Codex version's row of the version table, for participants' homes (default: newest). */
  readonly codex?: CodexVersionFacts;
  /** What every process's shell may not read. */
  readonly readDeny: ReadDeny;
  /** The operator's directories, which no participant may work in. */
  readonly stateDir: string;
  readonly configDir: string;
  readonly dataDir: string;
  /** Most participants the session may start (default 8). */
  readonly maxParticipants?: number;
  /** `inherit` for `run`; `exec` pipes stderr to log it (and hands it to `onStderr`). */
  readonly stdio: 'inherit' | 'pipe-stderr';
  readonly onStderr?: (chunk: string) => void;
  /** Seconds an approval request waits for a person before it is denied (default 900). */
  readonly approvalTimeoutSec?: number;
  /** The OS user at the terminal, recorded for answers given in the TUI (default: this process's). */
  readonly user?: string;
  /** Receives every session event as it is logged (exec's progress output). */
  readonly onEvent?: (event: SessionEvent) => void;
  /** For `exec`: `-c key=value` overrides and a model for the root's app-server. */
  readonly execOverrides?: { readonly config: readonly string[]; readonly model?: string };
  /** Problems found while the session runs (a drifted tool withheld by the gateway). */
  readonly onDiagnostic?: (diagnostic: Diagnostic) => void;
}

export interface SessionOutcome {
  readonly exitCode: number;
  /** The root's last message (`exec`), masked. */
  readonly finalMessage?: string;
  readonly status: SessionStatus;
  readonly record: SessionRecord;
}

export interface RunningSession {
  readonly id: string;
  readonly dir: string;
  readonly pid: number | undefined;
  readonly broker: SessionBroker;
  /** The session's model wire: which role each thread runs (`roleOfThread`). */
  readonly modelWire: ModelWire;
  readonly supervision: SessionSupervision;
  /** Forwards a signal to Codex; the session then ends as `stopped`. */
  signal(signal: NodeJS.Signals): void;
  readonly done: Promise<SessionOutcome>;
}

function participantProcess(sessionDir: string, info: ParticipantInfo): SessionProcess {
  const out: { -readonly [K in keyof SessionProcess]: SessionProcess[K] } = {
    id: info.participant,
    role: info.role,
    kind: 'participant',
    owner: info.owner,
    home: join(sessionPaths(sessionDir).homes, info.participant),
    cwd: info.cwd,
    status: info.status,
    started: info.started,
  };
  if (info.pid !== undefined) out.pid = info.pid;
  if (info.ended !== undefined) out.ended = info.ended;
  if (info.error !== undefined) out.error = info.error;
  return out;
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** Serialises record writes so the newest state always lands last. */
class RecordWriter {
  private chain: Promise<void> = Promise.resolve();
  constructor(
    private readonly dir: string,
    public record: SessionRecord,
  ) {}

  update(change: (record: SessionRecord) => SessionRecord): Promise<void> {
    this.record = change(this.record);
    const snapshot = this.record;
    this.chain = this.chain
      .then(() => writeSessionRecord(this.dir, snapshot))
      .catch(() => undefined);
    return this.chain;
  }
}

/** Creates the session on disk, starts the broker and Codex; `done` settles when Codex exits. */
// eslint-disable-next-line max-lines-per-function -- session start, supervision and ending share the resources each failure path must release, in order
export async function launchSession(
  plan: SessionPlan,
  context: LaunchContext,
): Promise<RunningSession> {
  const paths = await createSessionDir(plan.dir);
  const approvalsSocket = approvalSocketPath(plan.dir, plan.id, tmpdir());
  const writer = new RecordWriter(plan.dir, { ...plan.record, approvals_socket: approvalsSocket });
  // the approval queue and the event log: people answer and watch from other terminals
  const supervision = await SessionSupervision.start({
    session: plan.id,
    dir: plan.dir,
    socketPath: approvalsSocket,
    timeoutSec: context.approvalTimeoutSec ?? DEFAULT_APPROVAL_TIMEOUT_SEC,
    secrets: plan.secrets,
  });
  if (context.onEvent !== undefined) supervision.events.listen(context.onEvent);
  const seen = new Map<string, string>();
  let participants: readonly ParticipantInfo[] = [];
  let serverGroups: readonly number[] = [];
  let watchdog: Watchdog | undefined;
  const watchParticipants = (): void => {
    watchdog?.setGroups([
      ...participants.flatMap((p) =>
        p.pid !== undefined && isActiveStatus(p.status) ? [p.pid] : [],
      ),
      ...serverGroups,
    ]);
  };
  // every Tool MCP server of the session is reached through the gateway (docs/design.md §10), which
  // checks each call against the role the model wire attributed its thread to (docs/design.md §12)
  const threadRoles: { wire?: ModelWire } = {};
  const serverFailures: ServerFailure[] = [];
  const gateway = await SessionGateway.start({
    roleOfThread: (threadId) => threadRoles.wire?.roleOfThread(threadId),
    sessionDir: plan.dir,
    socketPath: gatewaySocketPath(plan.record.mesh_socket),
    snapshot: context.stored.snapshot,
    plan: context.plan,
    credentials: context.credentials,
    home: context.home,
    cli: context.cli,
    secrets: plan.secrets,
    onDrift: (report) => {
      context.onDiagnostic?.(driftDiagnostic(report));
      void writer.update((r) => ({
        ...r,
        tool_drift: [
          ...(r.tool_drift ?? []),
          { process: report.process, server: report.server, tool: report.tool },
        ],
      }));
    },
    onGroups: (pids) => {
      serverGroups = pids;
      watchParticipants();
    },
    onStderr: (process, server, text) => {
      void appendFile(join(paths.logs, `gateway-${process}-${server}.stderr.log`), text, {
        mode: 0o600,
      }).catch(() => undefined);
    },
    // a server's own failure, in its own words, not only Codex's wording of it
    onServerFailure: (failure) => {
      serverFailures.push(failure);
      context.onDiagnostic?.(
        serverFailureDiagnostic(failure, failureRequired(context.plan, failure)),
      );
      supervision.event(serverFailureEvent(failure));
    },
    // every refused call shows in `session logs` too, with the calling role and the reason
    onRecord: (entry) => {
      if (entry.outcome !== 'denied' && entry.outcome !== 'blocked') return;
      supervision.event(refusedEvent(entry));
    },
  });
  const rootProcess = context.plan.processes.find((p) => p.root === context.plan.root);
  const relayed =
    rootProcess === undefined
      ? { rendered: plan.rendered, env: plan.env, tokens: [] }
      : gateway.prepareProcess({
          processId: 'root',
          process: rootProcess,
          rendered: plan.rendered,
          env: plan.env,
          cwd: plan.cwd,
        });
  // every Codex process of the session reaches its model through the session's model wire
  const wire = await startSessionWire(context.stored.snapshot, context.plan, paths.logs, (call) => {
    gateway.hub.recordCall(unofferedRecord(call));
  });
  threadRoles.wire = wire;
  // events of a native role's thread are that role's
  const threadRole = (process: string, root: string, n: ServerNotification): string => {
    const thread = n.params.threadId;
    const seen = typeof thread === 'string' ? wire.roleOfThread(thread) : undefined;
    return seen?.process === process && seen.role !== null ? seen.role : root;
  };
  // an approval is the calling thread's role's, and refused unasked outside that role's grant
  const gate = approvalGate(
    context.plan,
    (thread) => (wire.enforcing ? wire.roleOfThread(thread) : undefined),
    (entry) => {
      gateway.hub.recordCall(entry);
    },
  );
  // the home, the first record and the broker are independent: prepare them concurrently
  const [home, first, started] = await Promise.allSettled([
    writeProcessHome(wire.home(relayed.rendered, 'root'), plan.homeDir, context.baseCodexHome),
    writer.update((r) => r),
    SessionBroker.start({
      sessionId: plan.id,
      sessionDir: plan.dir,
      socketPath: plan.record.mesh_socket,
      snapshot: context.stored.snapshot,
      plan: context.plan,
      launchEnv: context.launchEnv,
      credentials: context.credentials,
      home: context.home,
      baseCodexHome: context.baseCodexHome,
      codexBin: plan.command,
      codexEnv: plan.commandEnv,
      ...(context.codex !== undefined ? { codex: context.codex } : {}),
      cli: context.cli,
      defaultCwd: plan.cwd,
      prepareHome: (rendered, id) => wire.home(rendered, id),
      // with the wire enforcing, each mmo_mesh call acts with its calling thread's role
      ...(wire.enforcing
        ? { roleOfThread: (threadId: string) => wire.roleOfThread(threadId) }
        : {}),
      approvalsFor: (participant, role, secrets) =>
        supervision.policyFor(participant, role, secrets, gate),
      onNotification: (participant, role, n) => {
        supervision.notification(participant, threadRole(participant, role, n), n);
      },
      // an interactive root's mmo_mesh puts participants' requests to the person at the TUI
      ...(plan.record.mode === 'run'
        ? { rootApprovals: { queue: supervision.queue, user: context.user ?? osUser() } }
        : {}),
      gateway,
      readDeny: context.readDeny,
      markProcesses: true,
      forbiddenDirs: [context.configDir, context.dataDir, context.stateDir, context.baseCodexHome],
      ...(context.maxParticipants !== undefined
        ? { maxParticipants: context.maxParticipants }
        : {}),
      onChange: (list) => {
        participants = list;
        for (const p of list) {
          const before = seen.get(p.participant);
          if (before === p.status) continue;
          seen.set(p.participant, p.status);
          if (before === undefined) {
            supervision.event({ process: p.participant, role: p.role, type: 'process.started' });
          }
          if (!isActiveStatus(p.status)) {
            supervision.event({
              process: p.participant,
              role: p.role,
              type: 'process.ended',
              status: p.status,
              ...(p.error !== undefined ? { text: p.error } : {}),
            });
          }
        }
        watchParticipants();
        void writer.update((r) => ({
          ...r,
          processes: [
            ...r.processes.filter((p) => p.kind === 'root'),
            ...participants.map((p) => participantProcess(plan.dir, p)),
          ],
        }));
      },
    }),
  ]);
  if (started.status === 'rejected') {
    await wire.close();
    await supervision.close();
    await gateway.close();
    throw started.reason;
  }
  const broker = started.value;
  for (const step of [home, first]) {
    if (step.status === 'rejected') {
      await broker.close();
      await wire.close();
      await supervision.close();
      await gateway.close();
      await clearEndedHomes(paths.homes);
      throw step.reason;
    }
  }

  // the root process's mesh credential lives only in its environment and the broker's memory
  const meshRoot = context.plan.processes.some((p) => p.root === context.plan.root && p.mesh);
  const env = meshRoot ? { ...relayed.env, [MESH_TOKEN_ENV]: broker.rootToken } : relayed.env;
  const secrets = [...plan.secrets, broker.rootToken, ...relayed.tokens];
  const forwarded: { signal: NodeJS.Signals | undefined } = { signal: undefined };
  const logFile = join(paths.logs, 'codex.stderr.log');
  let stderrTail = '';
  let logChain: Promise<void> = Promise.resolve();
  // Codex's stderr is logged (and for `exec` shown) with credential values masked, line by line
  const exec = plan.record.mode === 'exec';
  const masked = new MaskingStream(secrets, (text) => {
    if (!exec) context.onStderr?.(text);
    logChain = logChain
      .then(() => appendFile(logFile, text, { mode: 0o600 }))
      .catch(() => undefined);
  });
  const onStderr = (chunk: string): void => {
    stderrTail = (stderrTail + chunk).slice(-4000);
    masked.push(chunk);
  };

  // what the sandbox may make in the root's working directory, absent now, goes with the session
  const mountPoints = await absentMountPoints(
    plan.cwd,
    (context.codex ?? NEWEST_CODEX).sandboxMountPoints,
  );

  // `exec` drives its root through `codex app-server`, so its approvals reach the queue;
  // `run` hands the terminal to the interactive Codex
  let execRoot: ExecRoot | undefined;
  let child: ChildProcess | undefined;
  let rootContainer: ContainedProcess | undefined;
  let spawnError: Error | undefined;
  let exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  if (exec) {
    const rootRole = context.plan.roles[context.plan.root];
    const servers = [
      ...Object.keys(rootRole?.grants ?? {}),
      ...(meshRoot ? [MESH_SERVER_NAME] : []),
    ];
    try {
      execRoot = await startExecRoot({
        codexBin: plan.command,
        home: plan.homeDir,
        env,
        cwd: plan.cwd,
        prompt: plan.prompt ?? '',
        configArgs: context.execOverrides?.config ?? [],
        ...(context.execOverrides?.model !== undefined
          ? { model: context.execOverrides.model }
          : {}),
        servers,
        lifecycleWaitSec: rootRole?.lifecycle_wait_sec ?? 120,
        secrets,
        approvals: supervision.policyFor('root', plan.rootRole, secrets, gate),
        onNotification: (n) => {
          supervision.notification('root', threadRole('root', plan.rootRole, n), n);
        },
        onStderr,
      });
    } catch (error) {
      spawnError = error instanceof Error ? error : new Error(String(error));
    }
    const root = execRoot;
    exit =
      root === undefined
        ? Promise.resolve({ code: null, signal: null })
        : root.done.then((o) => ({ code: o.exitCode, signal: null }));
  } else {
    // the TUI keeps the terminal and its process group; everything it starts stays in its container
    const started = spawnContained(plan.command, plan.args, {
      cwd: plan.cwd,
      env,
      stdio:
        context.stdio === 'inherit'
          ? ['inherit', 'inherit', 'inherit']
          : ['inherit', 'inherit', 'pipe'],
    });
    rootContainer = started;
    const spawned = started.child;
    child = spawned;
    spawned.stderr?.setEncoding('utf8');
    spawned.stderr?.on('data', onStderr);
    exit = new Promise((resolve) => {
      spawned.once('error', (error) => {
        spawnError = error;
        if (spawned.pid === undefined) resolve({ code: null, signal: null });
      });
      spawned.once('close', (code, signal) => {
        resolve({ code, signal });
      });
    });
  }
  const setRoot = (change: Partial<SessionProcess>): ((r: SessionRecord) => SessionRecord) => {
    return (r) => ({
      ...r,
      processes: r.processes.map((p) => (p.kind === 'root' ? { ...p, ...change } : p)),
    });
  };
  const pid = execRoot !== undefined ? execRoot.pid : child?.pid;
  // if this process is killed outright, the watchdog ends Codex and the participants
  if (pid !== undefined) {
    watchdog = startWatchdog(pid, undefined, {
      id: plan.id,
      homesDir: paths.homes,
      sockets: sessionSockets(writer.record),
      mountPoints,
    });
    watchParticipants();
  }
  supervision.event({ process: 'root', role: plan.rootRole, type: 'process.started' });
  await writer.update((r) =>
    setRoot(pid !== undefined ? { pid, status: 'running' } : { status: 'starting' })({
      ...r,
      status: 'running',
    }),
  );

  // once the session is ending, no request of any process is forwarded or put to a person:
  // each is refused and recorded as `session-ended` (the servers and processes end after)
  let ending = false;
  const beginEnding = (signal?: NodeJS.Signals): void => {
    if (ending) return;
    ending = true;
    gateway.hub.beginStop();
    // a stop is logged; a root that ended on its own says so with its `process.ended`
    if (signal !== undefined) {
      supervision.event({
        process: 'root',
        role: plan.rootRole,
        type: 'session.ending',
        text: `stopped by ${signal}`,
      });
    }
    void supervision.queue.close('the session ended');
  };

  const done = (async (): Promise<SessionOutcome> => {
    const { code, signal } = await exit;
    const execOutcome = execRoot !== undefined ? await execRoot.done : undefined;
    masked.end();
    beginEnding();
    // nobody can answer once the session ends: everything still pending is denied first
    await supervision.queue.close('the session ended');
    await broker.close();
    await wire.close();
    await gateway.close();
    // whatever Codex left behind: Tool MCP servers in their own process groups, app-server daemons
    await endMarkedProcesses(plan.id);
    // and the sandbox's mount points in the working directories of the root and the participants
    await removeMountPointLeftovers([...mountPoints, ...broker.mountPoints()]);
    watchdog?.release();
    // the copies of the operator's auth.json live only as long as the session, and so does the
    // rest of Codex's state in the homes
    await Promise.all([logChain, removeSessionLeftovers(plan.dir, writer.record)]);
    // a Codex that cannot be started is codex-mmo's own failure: exit 1, not a shell's 127
    const codexExit = spawnError !== undefined ? 1 : exitCodeOf(code, signal);
    // `session stop` leaves a marker; a terminating signal forwarded to Codex stops it as well
    const stopped = forwarded.signal !== undefined || (await stopRequested(plan.dir));
    // a stopped session never reports success, even when Codex ended cleanly on the signal
    const exitCode =
      stopped && codexExit === 0 ? exitCodeOf(null, forwarded.signal ?? 'SIGTERM') : codexExit;
    const requiredFailure = /required MCP servers? failed to initiali[sz]e[^\n]*/i.exec(
      execOutcome?.error ?? stderrTail,
    );
    let status: SessionStatus;
    let error: string | undefined;
    if (stopped) status = 'stopped';
    else if (spawnError !== undefined) {
      status = 'failed';
      error = maskSecrets(`could not start ${plan.command}: ${describeError(spawnError)}`, secrets);
    } else if (exitCode === 0) status = 'ended';
    else {
      status = 'failed';
      error =
        requiredFailure !== null
          ? maskSecrets(withOwnWords(requiredFailure[0].trim(), serverFailures), secrets)
          : (execOutcome?.error ?? `Codex exited with code ${exitCode}`);
    }
    const endedAt = new Date().toISOString();
    const rootStatus = status === 'stopped' ? 'stopped' : exitCode === 0 ? 'ended' : 'failed';
    supervision.event({
      process: 'root',
      role: plan.rootRole,
      type: 'process.ended',
      status: rootStatus,
      exit_code: exitCode,
      ...(error !== undefined ? { text: error } : {}),
    });
    await supervision.close();
    await writer.update((r) => {
      const next: SessionRecord = {
        ...r,
        status,
        ended: endedAt,
        exit_code: exitCode,
        ...(error !== undefined ? { error } : {}),
        processes: r.processes.map((p) =>
          p.kind === 'root'
            ? { ...p, status: rootStatus, ended: endedAt, exit_code: exitCode }
            : isActiveStatus(p.status)
              ? { ...p, status: 'stopped', ended: p.ended ?? endedAt }
              : p,
        ),
      };
      return next;
    });
    return {
      exitCode,
      status,
      record: writer.record,
      ...(execOutcome?.finalMessage !== undefined
        ? { finalMessage: execOutcome.finalMessage }
        : {}),
    };
  })();

  return {
    id: plan.id,
    dir: plan.dir,
    pid,
    broker,
    modelWire: wire,
    supervision,
    signal(signal: NodeJS.Signals): void {
      if (execRoot !== undefined) {
        forwarded.signal = signal;
        beginEnding(signal);
        execRoot.stop();
        return;
      }
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        forwarded.signal = signal;
        beginEnding(signal);
        rootContainer?.signal(signal);
      }
    },
    done,
  };
}
