/**
 * Plans a session launch without doing any of it (pure): the session root process's rendered
 * home with the real `mmo_mesh` command, its environment (built, not inherited), the Codex
 * command line for `run` (interactive) or `exec`, the initial session record, and diagnostics —
 * an error for every missing variable of a required grant, so the launch can refuse before
 * Codex runs.
 */
import { join } from 'node:path';

import { NEWEST_CODEX, type CodexVersionFacts } from '../../config/codex/codex-versions.js';
import { renderProcess } from '../../config/compile/render-process.js';
import type { BoundaryOptions } from '../../config/compile/session-boundary.js';
import type { MeshLaunch, RenderedHome } from '../../config/compile/types.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { meshLaunchFor } from '../../runtime/mesh/mesh-command.js';
import type { Environment } from '../../foundation/paths/directories.js';
import { unprotectedChannels } from '../../config/profile/channel-notes.js';
import type { PlanSource } from '../../config/profile/resolve-plan.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { Snapshot, StoredSnapshot } from '../../config/snapshot/types.js';
import { SESSION_MARKER_ENV } from '../../foundation/process/session-marker.js';
import { findProcess, processEnvironment } from '../../runtime/session/process-env.js';
import { leaseOf } from '../../runtime/gateway/session-gateway.js';
import { SESSION_FORMAT, type SessionRecord } from '../../runtime/session/session-record.js';
import { sessionPaths } from '../../runtime/session/session-store.js';

/** Granted servers the operator marked `shared = true`: one instance serves the session. */
function sharedServers(snapshot: Snapshot, plan: ResolvedPlan): string[] {
  const granted = new Set(plan.processes.flatMap((p) => p.servers));
  return [...granted]
    .filter((id) => (snapshot.servers[id] ?? plan.servers[id])?.shared === true)
    .sort();
}

/** Servers leased for some process of the session: answered from their pin until first used. */
function leasedServers(snapshot: Snapshot, plan: ResolvedPlan): string[] {
  const leased = new Set<string>();
  for (const process of plan.processes) {
    for (const id of process.servers) {
      const definition = snapshot.servers[id] ?? plan.servers[id];
      if (definition === undefined) continue;
      const grants = process.roles.map((role) => plan.roles[role]?.grants[id]);
      if (leaseOf(snapshot, definition, grants) !== undefined) leased.add(id);
    }
  }
  return [...leased].sort();
}

export type SessionMode = 'run' | 'exec';

/** `codex exec` refuses to run outside a Git repository unless told otherwise. */
export const SKIP_GIT_CHECK = '--skip-git-repo-check';

export interface PrepareSessionInput {
  readonly mode: SessionMode;
  readonly stored: StoredSnapshot;
  readonly plan: ResolvedPlan;
  readonly sessionId: string;
  readonly sessionDir: string;
  readonly socketPath: string;
  readonly launchEnv: Environment;
  readonly credentials: CredentialSource;
  /** The user's home, for `~/` in server commands. */
  readonly home: string;
  /** The command prefix that runs the codex-mmo CLI (`node dist/cli/main.js`). */
  readonly cli: MeshLaunch;
  /** The resolved Codex binary (the native one behind the npm launcher). */
  readonly codexBin: string;
  /** What every Codex process's environment gains to run `codexBin` (the launcher's variables). */
  readonly codexEnv?: Readonly<Record<string, string>>;
  /** Its row of the version table: rendering emits only keys it accepts (default: newest). */
  readonly codex?: CodexVersionFacts;
  readonly cwd: string;
  /** What the session's shells may not read, and the root's working directory (real path). */
  readonly boundary?: BoundaryOptions;
  /** The directories the root's container hides (`maskedDirs`), in place of deny entries. */
  readonly masked?: readonly string[];
  /** The `exec` prompt. */
  readonly prompt?: string;
  /** The earlier session this one continues, and the root's Codex thread there. */
  readonly resume?: { readonly from: string; readonly thread: string };
  /** Extra arguments for Codex (after `--` on the codex-mmo command line). */
  readonly codexArgs: readonly string[];
  /** The supervising process (this codex-mmo) recorded in the session. */
  readonly pid: number;
  /** Its start time (`/proc/<pid>/stat`), recorded so a reused pid is never taken for it. */
  readonly pidStart?: string;
  readonly now: Date;
  /** The pack file and its key positions, for warnings about its settings (when known). */
  readonly packSource?: PlanSource;
}

export interface SessionPlan {
  readonly id: string;
  readonly dir: string;
  readonly rootRole: string;
  /** The session root process's private Codex home. */
  readonly homeDir: string;
  /** The directories its container hides, its home kept; absent: its config denies them. */
  readonly masked?: readonly string[];
  readonly rendered: RenderedHome;
  readonly env: Record<string, string>;
  readonly command: string;
  /** What every Codex process of the session gains in its environment to run `command`. */
  readonly commandEnv: Readonly<Record<string, string>>;
  readonly args: readonly string[];
  /** The `exec` prompt (the root is driven through `codex app-server` with it). */
  readonly prompt?: string;
  /** The root's Codex thread of the session this one continues (resumed, not started). */
  readonly resumeThread?: string;
  readonly cwd: string;
  /** Missing-variable diagnostics: errors stop the launch, warnings are shown. */
  readonly diagnostics: readonly Diagnostic[];
  /** Values to mask in anything logged from the session. */
  readonly secrets: readonly string[];
  readonly record: SessionRecord;
}

/**
 * Codex arguments for the mode: `exec [--skip-git-repo-check] ARGS -- PROMPT`, or for `run` the
 * version's arguments that keep the TUI's app-server its own child (`tuiArgs`, those not already
 * given) before ARGS — and for a resumed `run`, `resume` first and the thread (and a prompt) last.
 */
export function codexArgv(
  mode: SessionMode,
  codexArgs: readonly string[],
  prompt: string | undefined,
  tuiArgs: readonly string[] = [],
  resumeThread?: string,
): string[] {
  if (mode === 'run') {
    const own = [...tuiArgs.filter((a) => !codexArgs.includes(a)), ...codexArgs];
    if (resumeThread === undefined) return own;
    return ['resume', ...own, '--', resumeThread, ...(prompt !== undefined ? [prompt] : [])];
  }
  const skip = codexArgs.includes(SKIP_GIT_CHECK) ? [] : [SKIP_GIT_CHECK];
  return ['exec', ...skip, ...codexArgs, '--', prompt ?? ''];
}

/**
 * The private Codex home of a process of a session: `homes/<root role>` for the session root
 * process, `homes/<participant id>` (`<role>-<n>`) for a participant.
 */
export function processHomeDir(sessionDir: string, processId: string): string {
  return join(sessionPaths(sessionDir).homes, processId);
}

export function prepareSession(input: PrepareSessionInput): SessionPlan {
  const { plan, stored } = input;
  const rootRole = plan.root;
  const homeDir = processHomeDir(input.sessionDir, rootRole);
  const process = findProcess(plan, rootRole);
  const diagnostics: Diagnostic[] = [];
  let env: Record<string, string> = {};
  let secrets: string[] = [];
  if (process === undefined) {
    diagnostics.push(
      diagnostic({
        code: 'no-root-process',
        message: `profile '${plan.profile}' has no process for its root role '${rootRole}'`,
      }),
    );
  } else {
    const environment = processEnvironment(
      plan,
      process,
      stored.snapshot.base,
      input.launchEnv,
      input.credentials,
      homeDir,
    );
    // the marker that lets the session find every process it started (never a bare pid)
    env = { ...environment.env, ...input.codexEnv, [SESSION_MARKER_ENV]: input.sessionId };
    secrets = [...environment.secrets, ...input.credentials.secretValues()];
    diagnostics.push(...environment.diagnostics);
  }
  // participant processes are checked again when spawned; say now what would refuse them
  for (const other of plan.processes) {
    if (other.root === rootRole) continue;
    const { diagnostics: missing } = processEnvironment(
      plan,
      other,
      stored.snapshot.base,
      input.launchEnv,
      input.credentials,
      processHomeDir(input.sessionDir, other.root),
    );
    for (const d of missing) {
      diagnostics.push(
        diagnostic({
          severity: 'warning',
          code: d.code,
          message:
            d.severity === 'error'
              ? `participants of role '${other.root}' cannot be spawned in this session: ${d.message}`
              : `participants of role '${other.root}': ${d.message}`,
          server: d.server,
        }),
      );
    }
  }
  diagnostics.push(...unprotectedChannels(stored.snapshot.profile, plan, input.packSource));
  const rendered = renderProcess(stored.snapshot, plan, rootRole, {
    home: input.home,
    mesh: meshLaunchFor(input.cli, input.sessionDir, rootRole),
    ...(input.codex !== undefined ? { codex: input.codex } : {}),
    ...(input.boundary !== undefined ? { boundary: input.boundary } : {}),
    sessionMarker: input.sessionId,
  });
  const started = input.now.toISOString();
  const shared = sharedServers(stored.snapshot, plan);
  const leased = leasedServers(stored.snapshot, plan);
  const record: SessionRecord = {
    format: SESSION_FORMAT,
    id: input.sessionId,
    profile: plan.profile,
    snapshot: stored.id,
    mode: input.mode,
    ...(input.resume !== undefined ? { resumed_from: input.resume.from } : {}),
    cwd: input.cwd,
    started,
    status: 'starting',
    pid: input.pid,
    ...(input.pidStart !== undefined ? { pid_start: input.pidStart } : {}),
    mesh_socket: input.socketPath,
    ...(shared.length > 0 ? { shared_servers: shared } : {}),
    ...(leased.length > 0 ? { leased_servers: leased } : {}),
    processes: [
      {
        id: 'root',
        role: rootRole,
        kind: 'root',
        home: homeDir,
        cwd: input.cwd,
        status: 'starting',
        started,
        ...(input.resume !== undefined ? { resumed_from: `${input.resume.from}/root` } : {}),
      },
    ],
  };
  return {
    id: input.sessionId,
    dir: input.sessionDir,
    rootRole,
    homeDir,
    ...(input.masked !== undefined ? { masked: input.masked } : {}),
    rendered,
    env,
    command: input.codexBin,
    commandEnv: input.codexEnv ?? {},
    args: codexArgv(
      input.mode,
      input.codexArgs,
      input.prompt,
      (input.codex ?? NEWEST_CODEX).tuiOwnAppServerArgs,
      input.resume?.thread,
    ),
    ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
    ...(input.resume !== undefined ? { resumeThread: input.resume.thread } : {}),
    cwd: input.cwd,
    diagnostics,
    secrets,
    record,
  };
}
