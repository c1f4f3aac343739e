/**
 * The last stage of `profile smoke`: turns what the run collected into the report — diagnostics
 * for native roles that could not be spawned, servers that failed (in their own words) and every
 * role's granted versus received tools, per process — and notes whether a session can put the
 * model wire in front of the configured provider.
 */
import { providerRoute } from '../../config/compile/provider-route.js';
import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { describeServerFailure } from '../../runtime/gateway/server-failure.js';
import type { ResolvedProcess } from '../../config/profile/types.js';
import {
  describeScope,
  howStarted,
  measurement,
  reasonOf,
  roleDiagnostics,
  type SmokeMeasurement,
  type SmokeReport,
  type SmokeRole,
  type SmokeServerFailure,
} from './smoke-report.js';
import type { SmokePrepared } from './smoke-prepare.js';
import { mask, type Run } from './smoke-run.js';

/**
 * A role's missing tools are a warning when every server they belong to is granted as not
 * required and failed to start in that process: Codex runs without it, as the grant allows.
 */
function optionalFailure(
  d: Diagnostic,
  missing: Readonly<Record<string, readonly string[]>>,
  failures: readonly SmokeServerFailure[],
  process: string,
): Diagnostic {
  if (d.code !== 'smoke-tool-missing') return d;
  const servers = Object.keys(missing).filter((s) => (missing[s] ?? []).length > 0);
  const optional = servers.every((s) =>
    failures.some((f) => f.process === process && f.server === s && !f.required),
  );
  if (servers.length === 0 || !optional) return d;
  return {
    ...d,
    severity: 'warning',
    message: `${d.message} (${servers.join(', ')} failed to start and ${servers.length === 1 ? 'is' : 'are'} granted with required = false, so the session runs without ${servers.length === 1 ? 'it' : 'them'}; see smoke-server-failed)`,
  };
}

/** Each failed server's error in its own words, as the gateway saw it, rather than Codex's wording. */
function ownWords(run: Run): void {
  run.failures.forEach((failure, i) => {
    const own = run.serverFailures.find(
      (f) => f.role === failure.process && f.server === failure.server,
    );
    if (own !== undefined) run.failures[i] = { ...failure, error: describeServerFailure(own) };
  });
}

/** The report of a smoke run, its findings added to `diagnostics`. */
export function smokeFindings(
  prepared: SmokePrepared,
  run: Run,
  spawnedBy: ReadonlyMap<string, string>,
  direct: readonly ResolvedProcess[],
  diagnostics: Diagnostic[],
): SmokeReport {
  const { plan, stored, codex, detection, missingEnv } = prepared;
  const { script, wire } = run;
  diagnostics.push(...run.diagnostics);
  // smoke puts the wire in front of the scripted model; a session fronts the operator's provider
  const sessionRoute = providerRoute(stored.snapshot.base);
  if (sessionRoute.kind === 'unfrontable') {
    diagnostics.push(
      diagnostic({
        severity: 'warning',
        code: 'model-wire-unfrontable',
        message: `smoke measured native roles through the model wire, but a session cannot put it in front of the configured provider: ${sessionRoute.reason}; in a session every native role is offered its process root's tools`,
      }),
    );
  }
  for (const failure of run.script.failures) {
    if (failure.via !== 'spawn_agent') continue;
    diagnostics.push(
      diagnostic({
        code: 'smoke-codex-failed',
        message: `Codex could not spawn native role '${failure.role}' in process '${failure.process}': ${mask(run, reasonOf(failure.output))}`,
      }),
    );
  }
  ownWords(run);
  for (const failure of run.failures) {
    diagnostics.push(
      diagnostic({
        severity: failure.required ? 'error' : 'warning',
        code: 'smoke-server-failed',
        message: `server '${failure.server}' ${failure.required ? '(required) ' : ''}failed to start in process '${failure.process}': ${failure.error}`,
        server: failure.server,
      }),
    );
  }

  // every (process, role); a role's own process, if it has one, is the one it is reported under
  const measured = new Map<string, SmokeMeasurement[]>();
  for (const process of plan.processes) {
    for (const role of process.roles) {
      const m = measurement(
        plan,
        { first: script.first, failures: script.failures, mask: (t) => mask(run, t) },
        process,
        role,
        howStarted(plan, spawnedBy, process, role, script.nativeParent(process.root, role)),
        codex.facts,
      );
      diagnostics.push(
        ...roleDiagnostics(role, m, wire.enforcing).map((d) =>
          optionalFailure(d, m.missing, run.failures, process.root),
        ),
      );
      measured.set(role, [...(measured.get(role) ?? []), m]);
    }
  }
  const roles: Record<string, SmokeRole> = {};
  for (const [role, all] of measured) {
    const primary = all.find((m) => m.process === role) ?? all[0];
    if (primary === undefined) continue;
    roles[role] = { ...primary, other_processes: all.filter((m) => m !== primary) };
  }
  return {
    ok: !hasErrors(diagnostics),
    profile: plan.profile,
    snapshot: stored.id,
    roles,
    servers_failed: run.failures,
    missing_env: missingEnv,
    scope: describeScope(
      plan,
      spawnedBy,
      direct.map((p) => p.root),
      detection.version,
    ),
    diagnostics,
    model_wire:
      sessionRoute.kind === 'unfrontable'
        ? { session_enforcing: false, reason: sessionRoute.reason }
        : { session_enforcing: true },
    codex: {
      path: detection.path,
      version: detection.version,
      supported: codex.supported,
    },
  };
}
