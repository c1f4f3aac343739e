/**
 * Carries out a prepared session: creates the session directory and the root process's private
 * Codex home, starts the session broker (the `mmo_mesh` back end that owns participants), spawns
 * Codex with the built environment, keeps `session.json` current, and when Codex exits stops
 * every participant and records how the session ended. Signals are forwarded by the caller
 * through `RunningSession.signal`; a watchdog ends Codex and the participants should this process
 * be killed without the chance to do so itself.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { ReadDeny } from '../compile/session-boundary.js';
import type { MeshLaunch } from '../compile/types.js';
import { describeError } from '../errors.js';
import { MESH_TOKEN_ENV } from '../mesh/mesh-credential.js';
import { SessionBroker } from '../mesh/session-broker.js';
import type { ParticipantInfo } from '../mesh/mesh-protocol.js';
import type { Environment } from '../paths/directories.js';
import type { ResolvedPlan } from '../profile/types.js';
import type { CredentialSource } from '../registry/credentials-types.js';
import type { StoredSnapshot } from '../snapshot/types.js';
import { removeAuthCopies, writeProcessHome } from './codex-home.js';
import { MaskingStream, maskSecrets } from '../diagnostics/mask-secrets.js';
import type { SessionPlan } from './prepare-session.js';
import { exitCodeOf } from '../process/process-control.js';
import { endMarkedProcesses } from '../process/session-marker.js';
import {
  isActiveStatus,
  type SessionProcess,
  type SessionRecord,
  type SessionStatus,
} from './session-record.js';
import {
  createSessionDir,
  sessionPaths,
  stopRequested,
  writeSessionRecord,
} from './session-store.js';
import { startWatchdog, type Watchdog } from './watchdog.js';

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
}

export interface SessionOutcome {
  readonly exitCode: number;
  readonly status: SessionStatus;
  readonly record: SessionRecord;
}

export interface RunningSession {
  readonly id: string;
  readonly dir: string;
  readonly pid: number | undefined;
  readonly broker: SessionBroker;
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
export async function launchSession(
  plan: SessionPlan,
  context: LaunchContext,
): Promise<RunningSession> {
  const paths = await createSessionDir(plan.dir);
  const writer = new RecordWriter(plan.dir, plan.record);
  let participants: readonly ParticipantInfo[] = [];
  let watchdog: Watchdog | undefined;
  const watchParticipants = (): void => {
    watchdog?.setGroups(
      participants.flatMap((p) => (p.pid !== undefined && isActiveStatus(p.status) ? [p.pid] : [])),
    );
  };
  // the home, the first record and the broker are independent: prepare them concurrently
  const [home, first, started] = await Promise.allSettled([
    writeProcessHome(plan.rendered, plan.homeDir, context.baseCodexHome),
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
      cli: context.cli,
      defaultCwd: plan.cwd,
      readDeny: context.readDeny,
      markProcesses: true,
      forbiddenDirs: [context.configDir, context.dataDir, context.stateDir, context.baseCodexHome],
      ...(context.maxParticipants !== undefined
        ? { maxParticipants: context.maxParticipants }
        : {}),
      onChange: (list) => {
        participants = list;
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
  if (started.status === 'rejected') throw started.reason;
  const broker = started.value;
  for (const step of [home, first]) {
    if (step.status === 'rejected') {
      await broker.close();
      await removeAuthCopies(paths.homes);
      throw step.reason;
    }
  }

  // the root process's mesh credential lives only in its environment and the broker's memory
  const meshRoot = context.plan.processes.some((p) => p.root === context.plan.root && p.mesh);
  const env = meshRoot ? { ...plan.env, [MESH_TOKEN_ENV]: broker.rootToken } : plan.env;
  const secrets = [...plan.secrets, broker.rootToken];
  const stdio: StdioOptions =
    context.stdio === 'inherit' ? 'inherit' : ['inherit', 'inherit', 'pipe'];
  const child: ChildProcess = spawn(plan.command, [...plan.args], {
    cwd: plan.cwd,
    env,
    stdio,
  });
  let spawnError: Error | undefined;
  const forwarded: { signal: NodeJS.Signals | undefined } = { signal: undefined };
  const logFile = join(paths.logs, 'codex.stderr.log');
  let stderrTail = '';
  let logChain: Promise<void> = Promise.resolve();
  // Codex's stderr is shown and logged with credential values masked, line by line
  const masked = new MaskingStream(secrets, (text) => {
    context.onStderr?.(text);
    logChain = logChain
      .then(() => appendFile(logFile, text, { mode: 0o600 }))
      .catch(() => undefined);
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
    masked.push(chunk);
  });

  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (error) => {
      spawnError = error;
      if (child.pid === undefined) resolve({ code: null, signal: null });
    });
    child.once('close', (code, signal) => {
      resolve({ code, signal });
    });
  });
  const setRoot = (change: Partial<SessionProcess>): ((r: SessionRecord) => SessionRecord) => {
    return (r) => ({
      ...r,
      processes: r.processes.map((p) => (p.kind === 'root' ? { ...p, ...change } : p)),
    });
  };
  const pid = child.pid;
  // if this process is killed outright, the watchdog ends Codex and the participants
  if (pid !== undefined) {
    watchdog = startWatchdog(pid, undefined, {
      id: plan.id,
      homesDir: paths.homes,
      socketPath: plan.record.mesh_socket,
    });
    watchParticipants();
  }
  await writer.update((r) =>
    setRoot(pid !== undefined ? { pid, status: 'running' } : { status: 'starting' })({
      ...r,
      status: 'running',
    }),
  );

  const done = (async (): Promise<SessionOutcome> => {
    const { code, signal } = await exit;
    masked.end();
    await broker.close();
    // whatever Codex left behind: Tool MCP servers in their own process groups, app-server daemons
    await endMarkedProcesses(plan.id);
    watchdog?.release();
    // the copies of the operator's auth.json live only as long as the session
    await Promise.all([logChain, removeAuthCopies(paths.homes)]);
    const codexExit = spawnError !== undefined ? 127 : exitCodeOf(code, signal);
    // `session stop` leaves a marker; a terminating signal forwarded to Codex stops it as well
    const stopped = forwarded.signal !== undefined || (await stopRequested(plan.dir));
    // a stopped session never reports success, even when Codex ended cleanly on the signal
    const exitCode =
      stopped && codexExit === 0 ? exitCodeOf(null, forwarded.signal ?? 'SIGTERM') : codexExit;
    const requiredFailure = /required MCP servers? failed to initiali[sz]e[^\n]*/i.exec(stderrTail);
    let status: SessionStatus;
    let error: string | undefined;
    if (stopped) status = 'stopped';
    else if (spawnError !== undefined) {
      status = 'failed';
      error = `could not start ${plan.command}: ${describeError(spawnError)}`;
    } else if (exitCode === 0) status = 'ended';
    else {
      status = 'failed';
      error =
        requiredFailure !== null
          ? maskSecrets(requiredFailure[0].trim(), secrets)
          : `Codex exited with code ${exitCode}`;
    }
    const endedAt = new Date().toISOString();
    const rootStatus = status === 'stopped' ? 'stopped' : exitCode === 0 ? 'ended' : 'failed';
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
    return { exitCode, status, record: writer.record };
  })();

  return {
    id: plan.id,
    dir: plan.dir,
    pid,
    broker,
    signal(signal: NodeJS.Signals): void {
      if (child.exitCode === null && child.signalCode === null) {
        forwarded.signal = signal;
        try {
          child.kill(signal);
        } catch {
          // already gone
        }
      }
    },
    done,
  };
}
