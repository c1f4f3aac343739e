/**
 * The second half of a session's start: spawns the session root Codex with the built environment
 * (its mesh credential only there and in the broker's memory) — `exec` through `codex app-server`,
 * so its approvals reach the queue; `run` as the interactive TUI — logs its stderr masked, starts
 * the watchdog and records the root as running.
 */
import type { ChildProcess } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';

import { NEWEST_CODEX } from '../../config/codex/codex-versions.js';
import { AppendQueue } from '../../foundation/append-queue.js';
import { MaskingStream } from '../../foundation/diagnostics/mask-secrets.js';
import { spawnContained, type ContainedProcess } from '../../foundation/process/contained-spawn.js';
import { MESH_TOKEN_ENV } from '../../runtime/mesh/mesh-credential.js';
import { MESH_SERVER_NAME } from '../../runtime/protocol/mesh-protocol.js';
import { absentMountPoints } from '../../runtime/session/sandbox-leftovers.js';
import { processView } from '../../runtime/session/process-view.js';
import type { SessionProcess, SessionRecord } from '../../runtime/session/session-record.js';
import { startExecRoot, type ExecRoot } from './exec-app-server.js';
import type { SessionServices } from './launch-services.js';
import type { LaunchContext } from './launch-types.js';
import type { SessionPlan } from './prepare-session.js';
import { sessionSockets } from './upkeep/session-leftovers.js';

export interface RootExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The session root Codex process; the mutable fields change while it runs. */
export interface RootProcess {
  readonly execRoot: ExecRoot | undefined;
  readonly child: ChildProcess | undefined;
  readonly container: ContainedProcess | undefined;
  readonly pid: number | undefined;
  readonly exit: Promise<RootExit>;
  /** Every credential value the root's output may carry, masked wherever it is shown or logged. */
  readonly secrets: readonly string[];
  /** What the sandbox may make in the root's working directory, absent at the start. */
  readonly mountPoints: readonly string[];
  /** Codex's stderr, masked line by line on its way to the log. */
  readonly masked: MaskingStream;
  spawnError: Error | undefined;
  /** The last 4000 characters of Codex's stderr, unmasked (for the failure it names). */
  stderrTail: string;
  /** Codex's stderr log (masked). */
  readonly log: AppendQueue;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Starts the session root Codex process and records it as running. */
export async function startRootProcess(
  plan: SessionPlan,
  context: LaunchContext,
  services: SessionServices,
): Promise<RootProcess> {
  const { broker, relayed, supervision, writer, paths } = services;
  // the root process's mesh credential lives only in its environment and the broker's memory
  const meshRoot = context.plan.processes.some((p) => p.root === context.plan.root && p.mesh);
  const env = meshRoot ? { ...relayed.env, [MESH_TOKEN_ENV]: broker.rootToken } : relayed.env;
  if (meshRoot) {
    services.gateway.addMeshRoute({
      process: 'root',
      role: context.plan.root,
      token: broker.rootToken,
    });
  }
  const secrets = [...plan.secrets, broker.rootToken, ...relayed.tokens];
  const log = new AppendQueue(join(paths.logs, 'codex.stderr.log'));
  // Codex's stderr is logged (and for `exec` shown) with credential values masked, line by line
  const exec = plan.record.mode === 'exec';
  const root: Mutable<RootProcess> = {
    execRoot: undefined,
    child: undefined,
    container: undefined,
    pid: undefined,
    exit: Promise.resolve({ code: null, signal: null }),
    secrets,
    mountPoints: [],
    masked: new MaskingStream(secrets, (text) => {
      if (!exec) context.onStderr?.(text);
      log.append(text);
    }),
    spawnError: undefined,
    stderrTail: '',
    log,
  };
  const onStderr = (chunk: string): void => {
    root.stderrTail = (root.stderrTail + chunk).slice(-4000);
    root.masked.push(chunk);
  };

  // what the sandbox may make in the root's working directory, absent now, goes with the session
  root.mountPoints = await absentMountPoints(
    plan.cwd,
    (context.codex ?? NEWEST_CODEX).sandboxMountPoints,
  );

  // where masks alone shield the root, its container hides the operator's directories
  const masks =
    plan.masked === undefined
      ? undefined
      : { hide: plan.masked, keep: [await realpath(plan.homeDir)] };
  const view = await processView(context.hostView, {
    cwd: plan.cwd,
    home: plan.homeDir,
    codexBin: plan.command,
    tmpDir: env.TMPDIR,
    runtimeDir: context.launchEnv.XDG_RUNTIME_DIR,
  });
  // if this process is killed outright, the watchdog ends Codex and the participants
  const guard = (pid: number): void => {
    services.watch.guard(pid, {
      id: plan.id,
      homesDir: paths.homes,
      sockets: sessionSockets(writer.record),
      mountPoints: root.mountPoints,
    });
  };
  // `exec` drives its root through `codex app-server`, so its approvals reach the queue;
  // `run` hands the terminal to the interactive Codex
  if (exec) {
    const rootRole = context.plan.roles[context.plan.root];
    const servers = [
      ...Object.keys(rootRole?.grants ?? {}),
      ...(meshRoot ? [MESH_SERVER_NAME] : []),
    ];
    try {
      root.execRoot = await startExecRoot({
        codexBin: plan.command,
        home: plan.homeDir,
        ...(masks !== undefined ? { masks } : {}),
        ...(view !== undefined ? { view } : {}),
        env,
        cwd: plan.cwd,
        prompt: plan.prompt ?? '',
        ...(plan.resumeThread !== undefined ? { resumeThread: plan.resumeThread } : {}),
        configArgs: context.execOverrides?.config ?? [],
        ...(context.execOverrides?.model !== undefined
          ? { model: context.execOverrides.model }
          : {}),
        servers,
        lifecycleWaitSec: rootRole?.lifecycle_wait_sec ?? 120,
        secrets,
        approvals: supervision.policyFor('root', plan.rootRole, secrets, services.gate),
        onNotification: (n) => {
          supervision.notification('root', services.threadRole('root', plan.rootRole, n), n);
        },
        onStderr,
        onSpawn: (pid) => {
          services.gateway.bindSpawned('root', pid);
          // guarded at once, while Codex starts, not once it answers
          guard(pid);
        },
      });
    } catch (error) {
      root.spawnError = error instanceof Error ? error : new Error(String(error));
    }
    const started = root.execRoot;
    root.exit =
      started === undefined
        ? Promise.resolve({ code: null, signal: null })
        : started.done.then((o) => ({ code: o.exitCode, signal: null }));
  } else {
    // the TUI keeps the terminal and its process group; everything it starts stays in its container
    const started = spawnContained(plan.command, plan.args, {
      cwd: plan.cwd,
      env,
      ...(masks !== undefined ? { masks } : {}),
      ...(view !== undefined ? { view } : {}),
      stdio:
        context.stdio === 'inherit'
          ? ['inherit', 'inherit', 'inherit']
          : ['inherit', 'inherit', 'pipe'],
    });
    root.container = started;
    const spawned = started.child;
    if (spawned.pid !== undefined) services.gateway.bindSpawned('root', spawned.pid);
    root.child = spawned;
    spawned.stderr?.setEncoding('utf8');
    spawned.stderr?.on('data', onStderr);
    root.exit = new Promise((resolve) => {
      spawned.once('error', (error) => {
        root.spawnError = error;
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
  const pid = root.execRoot !== undefined ? root.execRoot.pid : root.child?.pid;
  root.pid = pid;
  if (pid !== undefined) guard(pid);
  supervision.event({ process: 'root', role: plan.rootRole, type: 'process.started' });
  await writer.update((r) =>
    setRoot(pid !== undefined ? { pid, status: 'running' } : { status: 'starting' })({
      ...r,
      status: 'running',
    }),
  );
  return root;
}
