/**
 * `profile smoke`: the live, offline acceptance of a profile, run as a real session would run.
 * The session root process is a real `codex app-server` with the rendered configuration, the
 * session's environment and its `mmo_mesh`, talking to the built-in scripted model; the model has
 * every process root spawn its native roles (`spawn_agent`) and its participant roles (through
 * `mmo_mesh` and the session broker, which checks the spawn grant and starts each participant
 * with its own home and environment). The tools each role's model is offered are compared with
 * the role's grants. A participant role that no process root may spawn is started on its own.
 * Every process reaches its Tool MCP servers through the session gateway, as in a session: its
 * configuration holds relays, its environment no server credential.
 */
import type { ResolvedPlan } from '../../config/profile/types.js';
import type { Snapshot } from '../../config/snapshot/types.js';
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { smokeFindings } from './smoke-findings.js';
import { prepareSmoke } from './smoke-prepare.js';
import type { SmokeReport } from './smoke-report.js';
import type { SmokeRequest } from './smoke-run.js';
import { SmokeScript } from './smoke-script.js';
import { runSmokeSession } from './smoke-session.js';
export { smokeHome } from './smoke-home.js';
export type { SmokeRequest } from './smoke-run.js';
export { SMOKE_SPAWN_MARKER } from './smoke-script.js';
export type {
  SmokeMeasurement,
  SmokeMesh,
  SmokeMissingEnv,
  SmokeReport,
  SmokeRole,
  SmokeRoleKind,
  SmokeServerFailure,
  SmokeVia,
} from './smoke-report.js';
export {
  grantedTools,
  modelToolName,
  toOperatorNames,
  toolDifference,
  type ToolsByServer,
} from './smoke-tools.js';
/**
 * Which process root spawns which participant roles through `mmo_mesh`: breadth first from the
 * session root, each participant role by the first process root whose `spawn` grant lists it.
 * Processes that are not reached this way (only a native role may spawn them) are started on
 * their own.
 */
export function meshAssignments(
  snapshot: Snapshot,
  plan: ResolvedPlan,
): { spawns: Map<string, string[]>; spawnedBy: Map<string, string> } {
  const spawns = new Map<string, string[]>();
  const spawnedBy = new Map<string, string>();
  const queue = [plan.root];
  const reached = new Set(queue);
  for (let i = 0; i < queue.length; i++) {
    const root = queue[i] ?? '';
    const own: string[] = [];
    for (const target of snapshot.profile.agents[root]?.spawn ?? []) {
      if (reached.has(target) || !plan.processes.some((p) => p.root === target)) continue;
      reached.add(target);
      queue.push(target);
      own.push(target);
      spawnedBy.set(target, root);
    }
    spawns.set(root, own);
  }
  return { spawns, spawnedBy };
}

/** Compiles the profile and smoke-tests it as a session. Never throws for bad input. */
export async function smokeProfile(request: SmokeRequest): Promise<SmokeReport> {
  const diagnostics: Diagnostic[] = [];
  const prepared = await prepareSmoke(request, diagnostics);
  if ('report' in prepared) return prepared.report;
  const { plan, stored } = prepared.ready;
  const { spawns, spawnedBy } = meshAssignments(stored.snapshot, plan);
  const direct = plan.processes.filter((p) => p.root !== plan.root && !spawnedBy.has(p.root));
  const script = new SmokeScript(
    plan.processes,
    spawns,
    (role) => stored.snapshot.profile.agents[role]?.native_agents ?? [],
  );
  const run = await runSmokeSession(request, prepared.ready, script, spawnedBy, direct);
  diagnostics.push(...run.diagnostics);
  return smokeFindings(prepared.ready, run, spawnedBy, direct, diagnostics);
}
