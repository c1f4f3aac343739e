/**
 * The first stage of `profile smoke`: compiles the profile, locates Codex and classifies its
 * version, checks the `mmo_mesh` command, loads credentials and finds every variable a process
 * would miss. Returns what the session stage needs, or the report when the smoke cannot run.
 */
import type { MeshLaunch } from '../../config/compile/types.js';
import { compileProfile } from '../../config/compile/compile-profile.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import { loadCredentials } from '../../config/registry/credentials.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { StoredSnapshot } from '../../config/snapshot/types.js';
import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { configFiles } from '../../foundation/paths/directories.js';
import {
  codexInUse,
  codexVersionDiagnostics,
  type CodexInUse,
} from '../../runtime/codex/codex-in-use.js';
import type { CodexDetection } from '../../runtime/codex/find-codex.js';
import { checkMeshCommand, defaultCliLaunch } from '../../runtime/mesh/mesh-command.js';
import { processEnvironment } from '../../runtime/session/process-env.js';
import type { SmokeMissingEnv, SmokeReport } from './smoke-report.js';
import type { SmokeRequest } from './smoke-run.js';

/** A profile ready to be smoke-tested, with the Codex that runs it. */
export interface SmokePrepared {
  readonly plan: ResolvedPlan;
  readonly stored: StoredSnapshot;
  readonly codex: CodexInUse;
  readonly detection: Extract<CodexDetection, { kind: 'found' }>;
  readonly cli: MeshLaunch;
  readonly credentials: CredentialSource;
  readonly missingEnv: SmokeMissingEnv[];
}

/** Prepares the smoke run, adding what it finds to `diagnostics`; a report when it cannot run. */
export async function prepareSmoke(
  request: SmokeRequest,
  diagnostics: Diagnostic[],
): Promise<{ readonly ready: SmokePrepared } | { readonly report: SmokeReport }> {
  const empty = (profile: string | undefined, snapshot?: string): { report: SmokeReport } => ({
    report: {
      ok: false,
      profile,
      ...(snapshot !== undefined ? { snapshot } : {}),
      roles: {},
      servers_failed: [],
      missing_env: [],
      scope: [],
      diagnostics,
    },
  });
  const compiled = await compileProfile({
    nameOrPath: request.nameOrPath,
    dirs: request.dirs,
    cwd: request.cwd,
    env: request.env,
    home: request.home,
  });
  diagnostics.push(...compiled.diagnostics);
  const plan = compiled.plan;
  const stored = compiled.stored;
  if (plan === undefined || stored === undefined || hasErrors(diagnostics)) {
    return empty(plan?.profile);
  }
  const codex = await codexInUse(request.dirs.codexBin, request.env, request.cwd);
  if (codex.detection.kind === 'failed') {
    diagnostics.push(
      diagnostic({
        code: 'codex-not-runnable',
        message: `Codex binary ${codex.detection.path} does not work: ${codex.detection.reason}; reinstall it or pass --codex-bin PATH`,
      }),
    );
    return empty(plan.profile, stored.id);
  }
  if (codex.detection.kind === 'not-found') {
    diagnostics.push(
      diagnostic({
        code: 'codex-not-found',
        message: `Codex binary '${request.dirs.codexBin}' was not found; install @openai/codex or pass --codex-bin PATH`,
      }),
    );
    return empty(plan.profile, stored.id);
  }
  diagnostics.push(...codexVersionDiagnostics(codex));
  const cli = request.cli ?? defaultCliLaunch();
  if (plan.processes.some((p) => p.mesh)) {
    const missing = await checkMeshCommand(cli);
    if (missing !== undefined) {
      diagnostics.push(missing);
      return empty(plan.profile, stored.id);
    }
  }
  const credentials = await loadCredentials(
    configFiles(request.dirs.configDir).credentials,
    request.env,
  );
  diagnostics.push(...credentials.diagnostics);

  // what each process would be refused or warned about for want of a variable
  const missingEnv: SmokeMissingEnv[] = [];
  for (const process of plan.processes) {
    const { diagnostics: found } = processEnvironment(
      plan,
      process,
      stored.snapshot.base,
      request.env,
      credentials.source,
      '/',
    );
    for (const d of found) {
      diagnostics.push(d);
      const variable = /variable (\S+) is not set/.exec(d.message)?.[1];
      if (variable !== undefined && d.server !== undefined) {
        missingEnv.push({ process: process.root, variable, server: d.server });
      }
    }
  }
  return {
    ready: {
      plan,
      stored,
      codex,
      detection: codex.detection,
      cli,
      credentials: credentials.source,
      missingEnv,
    },
  };
}
