/**
 * Everything `run` and `exec` do before Codex starts: compile (or reuse) the profile's snapshot,
 * load credentials, locate Codex and classify its version (warning `codex-version-untested`
 * outside the version table; the home is rendered for that version), pick the session id,
 * directory and mesh socket, and prepare the launch. Returns diagnostics instead of a plan when the session must not start — notably when a
 * required grant's variable is missing, which is found here, before anything is written.
 */
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';

import type { MeshLaunch } from '../../config/compile/types.js';
import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import {
  codexInUse,
  codexVersionDiagnostics,
  type CodexInUse,
} from '../../runtime/codex/codex-in-use.js';
import { checkMeshCommand } from '../../runtime/mesh/mesh-command.js';
import {
  configFiles,
  type Directories,
  type Environment,
} from '../../foundation/paths/directories.js';
import { loadCredentials } from '../../config/registry/credentials.js';
import { compileOrReuse } from './compile-memo.js';
import { chooseSocketPath, type LaunchContext } from './launch.js';
import { packSource, warnsOnPack } from './pack-source.js';
import { prepareSession, type SessionMode, type SessionPlan } from './prepare-session.js';
import { processStartTime } from '../../foundation/process/session-marker.js';
import { containmentDiagnostics } from '../../runtime/session/containment-check.js';
import { machineBoundary } from '../../runtime/session/boundary-memo.js';
import { hostViewDiagnostics } from '../../runtime/session/host-view-check.js';
import { launchChecks } from './launch-checks.js';
import {
  configDeny,
  maskedDirs,
  plainCodexArgs,
  processBoundary,
  sandboxWritable,
  sessionReadDeny,
} from '../../runtime/session/read-deny.js';
import { needsAuthFile } from '../../config/compile/provider-route.js';
import { newSessionId } from '../../runtime/session/session-id.js';
import { sessionDir } from '../../runtime/session/session-store.js';
import { snapshotTrustChecks } from './snapshot-trust.js';
import type { CompileResult } from '../../config/compile/compile-profile.js';
import { planOfSnapshot } from '../../config/snapshot/plan-of-snapshot.js';
import { CodexMmoError } from '../../foundation/errors.js';
import type { ResumeSource } from './resume-source.js';

/** The earlier session's own snapshot and its plan, as a compile would give them. */
function resumedCompile(source: ResumeSource): CompileResult {
  try {
    return {
      stored: source.stored,
      plan: planOfSnapshot(source.stored.snapshot),
      created: false,
      diagnostics: [],
    };
  } catch (error) {
    const why = error instanceof CodexMmoError ? error.message : String(error);
    return {
      created: false,
      diagnostics: [
        diagnostic({
          code: 'resume-snapshot-gone',
          message: `session ${source.from} cannot be resumed: ${why}`,
        }),
      ],
    };
  }
}

export interface StartSessionRequest {
  readonly mode: SessionMode;
  /** Installed pack name or pack directory. */
  readonly profile: string;
  readonly prompt?: string;
  readonly codexArgs: readonly string[];
  readonly dirs: Directories;
  readonly env: Environment;
  readonly home: string;
  /** Directory a relative pack path is resolved against. */
  readonly cwd: string;
  /** Working directory of Codex (defaults to `cwd`). */
  readonly sessionCwd?: string;
  /** Command prefix that runs the codex-mmo CLI, for the `mmo_mesh` entries. */
  readonly cli: MeshLaunch;
  /** The supervising process id recorded in the session. */
  readonly pid: number;
  /** Start even where the host view cannot be built and a role's shell has network. */
  readonly acceptHostRisk?: boolean;
  /** Continue this earlier session from its own snapshot (`profile` is then not compiled). */
  readonly resume?: ResumeSource;
}

export type StartSessionResult =
  | {
      readonly ok: true;
      readonly plan: SessionPlan;
      readonly context: Omit<LaunchContext, 'stdio' | 'onStderr'>;
      /** Warnings worth showing (missing variables of optional grants, credential file mode). */
      readonly diagnostics: readonly Diagnostic[];
      readonly snapshotCreated: boolean;
    }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** Why the Codex binary cannot be used: not runnable, or not found. */
function codexMissing(
  detection: Exclude<CodexInUse['detection'], { kind: 'found' }>,
  request: StartSessionRequest,
): Diagnostic {
  if (detection.kind === 'failed') {
    return diagnostic({
      code: 'codex-not-runnable',
      message: `Codex binary ${detection.path} does not work: ${detection.reason}; reinstall it, or pass --codex-bin PATH or set CODEX_MMO_CODEX_BIN`,
    });
  }
  return diagnostic({
    code: 'codex-not-found',
    message: request.dirs.codexBin.includes('/')
      ? `Codex binary ${request.dirs.codexBin} is not an executable file; pass --codex-bin PATH or set CODEX_MMO_CODEX_BIN`
      : `\`${request.dirs.codexBin}\` is not on PATH; install Codex, or pass --codex-bin PATH or set CODEX_MMO_CODEX_BIN`,
  });
}

export async function startSession(request: StartSessionRequest): Promise<StartSessionResult> {
  // independent look-ups, done concurrently to keep the launch overhead small
  const [compiled, credentials, { found: codex, machine }] = await Promise.all([
    request.resume !== undefined
      ? resumedCompile(request.resume)
      : compileOrReuse({
          nameOrPath: request.profile,
          dirs: request.dirs,
          cwd: request.cwd,
          env: request.env,
          home: request.home,
        }),
    loadCredentials(configFiles(request.dirs.configDir).credentials, request.env),
    // this machine's containment and host view, probed once and remembered
    codexInUse(request.dirs.codexBin, request.env, request.cwd, request.dirs.dataDir).then(
      async (found) => ({
        found,
        machine: await machineBoundary(
          request.dirs.dataDir,
          found.detection.kind === 'found' ? found.detection.launch.command : undefined,
        ),
      }),
    ),
  ]);
  const { contained, view } = machine;
  if (
    compiled.stored === undefined ||
    compiled.plan === undefined ||
    hasErrors(compiled.diagnostics)
  ) {
    return { ok: false, diagnostics: compiled.diagnostics };
  }
  const diagnostics: Diagnostic[] = [...compiled.diagnostics, ...credentials.diagnostics];
  if (hasErrors(credentials.diagnostics)) return { ok: false, diagnostics };
  // a reused compile was checked against the credentials and pins of its time: check again
  // and what doctor would find that fails the session (servers that cannot start, a model not
  // there): independent, so checked at once
  const files = configFiles(request.dirs.configDir);
  const [trust, launch] = await Promise.all([
    snapshotTrustChecks(compiled.stored, request, credentials.source),
    launchChecks(
      {
        snapshot: compiled.stored.snapshot,
        env: request.env,
        home: request.home,
        credentials: credentials.source,
        baseFile: files.codexBase,
        registryDir: files.registryDir,
      },
      diagnostics,
    ),
  ]);
  diagnostics.push(...trust);
  if (hasErrors(trust)) return { ok: false, diagnostics };
  diagnostics.push(...launch);
  if (hasErrors(launch)) return { ok: false, diagnostics };

  if (codex.detection.kind !== 'found') {
    return { ok: false, diagnostics: [...diagnostics, codexMissing(codex.detection, request)] };
  }
  const codexBin = codex.detection.launch.command;
  diagnostics.push(...codexVersionDiagnostics(codex));
  // said before anything runs: whether the session's processes can be contained here
  const containedDiagnostics = containmentDiagnostics(contained, compiled.stored.snapshot.profile);
  diagnostics.push(...containedDiagnostics);
  if (hasErrors(containedDiagnostics)) return { ok: false, diagnostics };
  const hostView = view ?? { available: false, reason: 'no Codex binary' };
  const viewDiagnostics = hostViewDiagnostics(
    hostView,
    compiled.stored.snapshot.profile,
    request.acceptHostRisk === true,
  );
  diagnostics.push(...viewDiagnostics);
  if (hasErrors(viewDiagnostics)) return { ok: false, diagnostics };

  // the mmo_mesh entries run the codex-mmo CLI; it must be there before Codex tries to start it
  if (compiled.plan.processes.some((p) => p.mesh)) {
    const missing = await checkMeshCommand(request.cli);
    if (missing !== undefined) return { ok: false, diagnostics: [...diagnostics, missing] };
  }

  const now = new Date();
  const id = newSessionId(now);
  const dir = sessionDir(request.dirs.stateDir, id);
  const cwd = request.sessionCwd ?? request.cwd;
  const masking = contained.available && contained.masking !== undefined;
  const readDeny = await sessionReadDeny(request.dirs, masking);
  const authFile = needsAuthFile(compiled.stored.snapshot.base);
  const boundary = await processBoundary(readDeny, cwd);
  const resolved = compiled.plan;
  const rootProcess = resolved.processes.find((p) => p.root === resolved.root);
  const permissions = compiled.stored.snapshot.profile.agents[resolved.root]?.permissions;
  // the root's container hides the operator's directories where that alone shields it
  const masked =
    permissions === undefined || !plainCodexArgs(request.codexArgs)
      ? undefined
      : maskedDirs(readDeny, {
          cwd: boundary.cwd,
          codexBin: await realpath(codexBin).catch(() => codexBin),
          roles: rootProcess?.roles.length ?? 1,
          authFile,
          writable: await sandboxWritable(permissions, boundary.cwd, request.env.TMPDIR),
        });
  const pidStart = processStartTime(request.pid);
  // a warning about the pack's own settings names its file and line, as `profile doctor` does
  const source =
    request.resume === undefined && warnsOnPack(compiled.stored.snapshot.profile, resolved)
      ? await packSource(request.profile, request.dirs.dataDir, request.cwd)
      : undefined;
  const plan = prepareSession({
    ...(source !== undefined ? { packSource: source } : {}),
    mode: request.mode,
    stored: compiled.stored,
    plan: compiled.plan,
    sessionId: id,
    sessionDir: dir,
    socketPath: chooseSocketPath(dir, id, tmpdir()),
    launchEnv: request.env,
    credentials: credentials.source,
    home: request.home,
    cli: request.cli,
    codexBin,
    codexEnv: codex.detection.launch.env,
    codex: codex.facts,
    // checked as its real path, so started there: no symlink can move it after the check
    cwd: masked !== undefined ? boundary.cwd : cwd,
    boundary: { deny: configDeny(readDeny, masked), cwd: boundary.cwd },
    ...(masked !== undefined ? { masked } : {}),
    ...(request.prompt !== undefined ? { prompt: request.prompt } : {}),
    ...(request.resume !== undefined
      ? { resume: { from: request.resume.from, thread: request.resume.rootThread } }
      : {}),
    codexArgs: request.codexArgs,
    pid: request.pid,
    ...(pidStart !== undefined ? { pidStart } : {}),
    now,
  });
  diagnostics.push(...plan.diagnostics);
  if (hasErrors(plan.diagnostics)) return { ok: false, diagnostics };
  return {
    ok: true,
    plan,
    context: {
      stored: compiled.stored,
      plan: compiled.plan,
      launchEnv: request.env,
      credentials: credentials.source,
      home: request.home,
      baseCodexHome: request.dirs.baseCodexHome,
      authFile,
      cli: request.cli,
      codex: codex.facts,
      readDeny,
      stateDir: request.dirs.stateDir,
      configDir: request.dirs.configDir,
      dataDir: request.dirs.dataDir,
      hostView,
      ...(request.resume !== undefined ? { resume: request.resume } : {}),
    },
    diagnostics,
    snapshotCreated: compiled.created,
  };
}
