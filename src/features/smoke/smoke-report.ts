/**
 * The report of `profile smoke` (pure): its data model, how each (process, role) was started and
 * what its first model request showed, what that means as diagnostics, and the words that say
 * what the run measured and what it did not.
 */
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { ModelRequest } from '../../runtime/codex/scripted-model.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { MESH_SERVER_NAME, MESH_TOOL_NAMES } from '../../runtime/protocol/mesh-protocol.js';
import type { ResolvedPlan, ResolvedProcess } from '../../config/profile/types.js';
import type { SpawnFailure } from './smoke-script.js';
import {
  formatTools,
  grantedTools,
  meshTools,
  processServers,
  toOperatorNames,
  toolDifference,
  withoutMesh,
  type ToolsByServer,
} from './smoke-tools.js';

export type SmokeRoleKind = 'root' | 'participant' | 'native';

/**
 * How a role was started: `session` (the session root process), `mmo_mesh` (a participant
 * spawned through `mmo_mesh` by `spawned_by`), `spawn_agent` (a native role spawned inside its
 * process by the process root), `app-server` (a participant role no process root may spawn,
 * started on its own without `mmo_mesh`).
 */
export type SmokeVia = 'session' | 'mmo_mesh' | 'spawn_agent' | 'app-server';

/** The `mmo_mesh` side of a role. */
export interface SmokeMesh {
  /** Whether the role's spawn/control grants call for the mesh tools. */
  readonly expected: boolean;
  /** Whether the role ran with `mmo_mesh` at all (not for roles started on their own). */
  readonly measured: boolean;
  /** The `mmo_mesh` tools its model request offered. */
  readonly received: string[];
}

/** One role measured in one process. */
export interface SmokeMeasurement {
  /** Root role of the Codex process the role runs in. */
  readonly process: string;
  readonly kind: SmokeRoleKind;
  /** True for native roles: they run inside their process root's Codex process. */
  readonly shared_process: boolean;
  readonly via: SmokeVia;
  /** The process root whose model spawned this role, when one did. */
  readonly spawned_by?: string;
  /** Whether a model request of this role was observed. */
  readonly measured: boolean;
  /** Why no request was observed, when that is known. */
  readonly not_measured_reason?: string;
  readonly granted: ToolsByServer;
  /** The Tool MCP tools the role's model request offered, by server (`{}` when not measured). */
  readonly received: ToolsByServer;
  /** Received but not granted. */
  readonly extra: ToolsByServer;
  /** Granted but not received. */
  readonly missing: ToolsByServer;
  readonly mesh: SmokeMesh;
}

export interface SmokeRole extends SmokeMeasurement {
  /** The same native role measured in the other processes it belongs to. */
  readonly other_processes: SmokeMeasurement[];
}

export interface SmokeServerFailure {
  readonly process: string;
  readonly server: string;
  /** Whether the process root requires the server. */
  readonly required: boolean;
  /** Codex's error text, with credential values masked. */
  readonly error: string;
}

export interface SmokeMissingEnv {
  readonly process: string;
  readonly variable: string;
  readonly server: string;
}

export interface SmokeReport {
  readonly ok: boolean;
  readonly profile: string | undefined;
  /** Identity of the compiled snapshot that was exercised. */
  readonly snapshot?: string;
  readonly roles: Record<string, SmokeRole>;
  readonly servers_failed: SmokeServerFailure[];
  readonly missing_env: SmokeMissingEnv[];
  /** What this smoke run measured and what it did not, in words. */
  readonly scope: string[];
  readonly diagnostics: Diagnostic[];
  /**
   * The model wire: smoke always runs through it; `session_enforcing` says whether a session with
   * the operator's provider does too, and `reason` why not.
   */
  readonly model_wire?: { readonly session_enforcing: boolean; readonly reason?: string };
  /** The Codex that was measured, when one was found. */
  readonly codex?: {
    readonly path: string;
    readonly version: string;
    /** Whether the version is one of the supported versions. */
    readonly supported: boolean;
  };
}

/** Whether `mmo_mesh` is enabled for `role` as a process root (it has spawn or control). */
export function hasMesh(plan: ResolvedPlan, role: string): boolean {
  return (plan.roles[role]?.mesh_tool_timeout_sec ?? null) !== null;
}

/** The text of a tool output as a one-line reason. */
export function reasonOf(output: string): string {
  let text = output;
  try {
    const parsed: unknown = JSON.parse(output);
    if (Array.isArray(parsed)) {
      text = parsed
        .map((c: unknown) =>
          typeof c === 'object' && c !== null && typeof (c as { text?: unknown }).text === 'string'
            ? (c as { text: string }).text
            : '',
        )
        .join(' ');
    }
  } catch {
    // plain text
  }
  return text.replace(/\s+/g, ' ').trim();
}

export interface HowStarted {
  readonly via: SmokeVia;
  readonly spawnedBy?: string;
  /** Whether the role's process ran with `mmo_mesh`. */
  readonly withMesh: boolean;
}

/** How `role` of `process` was started in this smoke run. */
export function howStarted(
  plan: ResolvedPlan,
  spawnedBy: ReadonlyMap<string, string>,
  process: ResolvedProcess,
  role: string,
  /** The role that spawned native role `role` (default: the process root). */
  nativeParent?: string,
): HowStarted {
  const byMesh = spawnedBy.get(process.root);
  const withMesh = process.root === plan.root || byMesh !== undefined;
  if (role !== process.root) {
    return { via: 'spawn_agent', spawnedBy: nativeParent ?? process.root, withMesh };
  }
  if (process.root === plan.root) return { via: 'session', withMesh };
  return byMesh !== undefined
    ? { via: 'mmo_mesh', spawnedBy: byMesh, withMesh }
    : { via: 'app-server', withMesh };
}

/** What the scripted model saw of one run: first requests and failed spawns, and a masker. */
export interface SmokeObservations {
  readonly first: ReadonlyMap<string, ModelRequest>;
  readonly failures: readonly SpawnFailure[];
  readonly mask: (text: string) => string;
}

/**
 * The measurement of `role` in `process`: what its first request offered, read back to server
 * IDs the way `codex` names them, against its grants.
 */
export function measurement(
  plan: ResolvedPlan,
  seen: SmokeObservations,
  process: ResolvedProcess,
  role: string,
  how: HowStarted,
  codex: CodexVersionFacts,
): SmokeMeasurement {
  const kind: SmokeRoleKind =
    role !== process.root ? 'native' : role === plan.root ? 'root' : 'participant';
  const request = seen.first.get(`${process.root}/${role}`);
  const granted = grantedTools(plan, role);
  const offered =
    request === undefined
      ? {}
      : toOperatorNames(request.offeredTools.mcp, plan, processServers(process), codex);
  const received = withoutMesh(offered);
  const out: { -readonly [K in keyof SmokeMeasurement]: SmokeMeasurement[K] } = {
    process: process.root,
    kind,
    shared_process: kind === 'native',
    via: how.via,
    measured: request !== undefined,
    granted,
    received,
    extra: request === undefined ? {} : toolDifference(received, granted),
    missing: request === undefined ? {} : toolDifference(granted, received),
    mesh: {
      expected: hasMesh(plan, role),
      measured: how.withMesh && request !== undefined,
      received: meshTools(offered),
    },
  };
  if (how.spawnedBy !== undefined) out.spawned_by = how.spawnedBy;
  if (request === undefined) {
    const failure = seen.failures.find(
      (f) =>
        (f.via === 'mmo_mesh' && f.role === process.root) ||
        (f.via === 'spawn_agent' && f.process === process.root && f.role === role),
    );
    if (failure !== undefined) {
      const what =
        failure.via === 'spawn_agent'
          ? `spawn_agent in '${failure.process}'`
          : role === process.root
            ? `spawning it through mmo_mesh from '${failure.process}'`
            : `spawning its process '${process.root}' through mmo_mesh from '${failure.process}'`;
      out.not_measured_reason = seen.mask(`${what} failed: ${reasonOf(failure.output)}`);
    }
  }
  return out;
}

export function describeScope(
  plan: ResolvedPlan,
  spawnedBy: ReadonlyMap<string, string>,
  direct: readonly string[],
  codexVersion?: string,
): string[] {
  const codex = codexVersion !== undefined ? `Codex ${codexVersion}` : 'Codex';
  const lines = [
    `Measured: the MCP tools each role's model is offered in its first request, with real ${codex} against the built-in scripted model (offline, no API key), the rendered configuration and the environment a session gives each process.`,
    hasMesh(plan, plan.root)
      ? `The session root '${plan.root}' ran as a Codex app-server with its mmo_mesh.`
      : `The session root '${plan.root}' ran as a Codex app-server, without mmo_mesh (it has no spawn or control grant).`,
  ];
  for (const [role, by] of spawnedBy) {
    lines.push(
      `Participant '${role}' was spawned through mmo_mesh by '${by}': the session broker checked the spawn grant and started it with its own home and only its own variables.`,
    );
  }
  for (const role of direct) {
    lines.push(
      `Participant '${role}' is not in the spawn grant of any process root (only a native role may spawn it), so it was started on its own, without mmo_mesh.`,
    );
  }
  if (plan.processes.some((p) => p.roles.length > 1)) {
    lines.push(
      'Native roles were spawned with spawn_agent inside each process they belong to, each by a role that lists it in native_agents, and are measured in each, as the model receives them through the model wire (which narrows each role to its grants and its own native roles).',
    );
  }
  lines.push(
    'Not measured: tool calls and their results (servers start, no tool is called), approval prompts, send/wait/stop through mmo_mesh, and what a real model would do.',
  );
  return lines;
}

/**
 * What a role's measurement means: errors for a root or participant, warnings for a native role.
 * With the model wire enforcing (`wireEnforcing`) a native role is held to its grants like any
 * other role: a tool it was not granted and a granted tool it lacks are both errors (its process
 * exposes the union of its roles' grants, and the wire narrows each role to its own).
 */
export function roleDiagnostics(
  name: string,
  role: SmokeMeasurement,
  wireEnforcing = false,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const native = role.kind === 'native' && !wireEnforcing;
  if (!role.measured) {
    out.push(
      diagnostic({
        severity: native ? 'warning' : 'error',
        code: 'smoke-role-not-measured',
        message: `no model request of role '${name}' (process '${role.process}') was observed, so its tools could not be checked${role.not_measured_reason !== undefined ? `: ${role.not_measured_reason}` : ''}`,
      }),
    );
    return out;
  }
  const meshExtra = role.mesh.measured && !role.mesh.expected ? role.mesh.received : [];
  const extra = [
    formatTools(role.extra),
    meshExtra.length === MESH_TOOL_NAMES.length
      ? `${MESH_SERVER_NAME} (all ${MESH_TOOL_NAMES.length} tools)`
      : formatTools({ [MESH_SERVER_NAME]: meshExtra }),
  ]
    .filter((t) => t !== '')
    .join(', ');
  const missing = formatTools(role.missing);
  if (native) {
    if (extra !== '' || missing !== '') {
      const parts = [
        extra !== '' ? `received tools it was not granted (${extra})` : '',
        missing !== '' ? `did not receive granted tools (${missing})` : '',
      ].filter((p) => p !== '');
      out.push(
        diagnostic({
          severity: 'warning',
          code: 'native-role-not-isolated',
          message: `native role '${name}' ${parts.join(' and ')}: measured, Codex gives a native role the tools of its process root '${role.process}'; make it a participant (spawn) to enforce its grants`,
        }),
      );
    }
    return out;
  }
  if (extra !== '') {
    out.push(
      diagnostic({
        code: 'smoke-tool-extra',
        message: `role '${name}' received tools it was not granted: ${extra}`,
      }),
    );
  }
  if (missing !== '') {
    out.push(
      diagnostic({
        code: 'smoke-tool-missing',
        message: `role '${name}' did not receive granted tools: ${missing}; check that the server offers them (tool-mcp probe) and that it started`,
      }),
    );
  }
  const all: readonly string[] = MESH_TOOL_NAMES;
  if (
    role.mesh.measured &&
    role.mesh.expected &&
    !all.every((t) => role.mesh.received.includes(t))
  ) {
    out.push(
      diagnostic({
        code: 'smoke-mesh-tools',
        message: `role '${name}' may spawn or control participants, but its model was not offered every mmo_mesh tool (offered: ${role.mesh.received.join(', ') || 'none'})`,
      }),
    );
  }
  return out;
}
