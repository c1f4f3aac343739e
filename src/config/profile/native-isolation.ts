/**
 * What Codex really does with native roles (on every supported version, per the version table's
 * `nativeRolesIsolated`): a sub-agent uses its parent session's MCP servers, tool filters and
 * approval modes — `mmo_mesh` included, which acts for the process
 * root — and shares its process environment. Pure: compares each native role's grants and
 * spawn/control lists with its process root's and reports the difference.
 */
import { NEWEST_CODEX, type CodexVersionFacts } from '../codex/codex-versions.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { referencedEnvVars } from '../registry/types.js';
import { keyLocation, type KeyPath } from '../../foundation/toml/key-positions.js';
import type { PlanSource } from './resolve-plan.js';
import type { ProfileData, ResolvedPlan } from './types.js';
import { ownValue } from '../registry/own-record.js';

/**
 * Whether a session's model wire narrows each native role's offered tools to its grants (see
 * src/runtime/model-wire/enforcement.ts), or why it cannot.
 */
export type NativeEnforcement =
  { readonly narrows: true } | { readonly narrows: false; readonly reason: string };

/** Tools of one server, as `server:tool` pairs grouped by server. */
export interface ServerTools {
  readonly server: string;
  readonly tools: readonly string[];
}

/** Participant grants: the roles one may spawn and control through `mmo_mesh`. */
export interface MeshGrants {
  readonly spawn: readonly string[];
  readonly control: readonly string[];
}

/**
 * A native role's reach through `mmo_mesh` when it differs from its own lists. The process's
 * mesh server is started for the process root and authorises every call with the root's lists,
 * and the role sees the root's `mmo_mesh` entry (enabled only when the root has spawn or control).
 */
export interface MeshDelta {
  /** What the role really gets: the root's lists, or null when the root has neither (no mesh tools). */
  readonly effective: MeshGrants | null;
  /** The role's own lists, which Codex does not apply to it. */
  readonly own: MeshGrants;
}

export interface NativeRoleDelta {
  /** Root role of the process the native role runs in. */
  readonly process: string;
  readonly role: string;
  /** Tools the process root has that the role was not granted: Codex gives them to the role. */
  readonly gains: readonly ServerTools[];
  /** Tools granted to the role that the process root lacks: the role will not have them. */
  readonly loses: readonly ServerTools[];
  /** Servers granted to both with a different `required`: the root's setting applies. */
  readonly requiredDiffers: readonly string[];
  /** Variable names referenced by the role's servers. */
  readonly env: readonly string[];
  /** Of those, the names the root's own servers do not reference. */
  readonly envBeyondRoot: readonly string[];
  /** Present when the role's reach through `mmo_mesh` differs from its own spawn/control. */
  readonly mesh?: MeshDelta;
}

function meshGrantsOf(profile: ProfileData, role: string): MeshGrants {
  const spec = profile.agents[role];
  return { spawn: [...(spec?.spawn ?? [])].sort(), control: [...(spec?.control ?? [])].sort() };
}

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The mesh difference of native role `role` in the process rooted at `root`, if any. */
function meshDelta(profile: ProfileData, root: string, role: string): MeshDelta | undefined {
  const rootGrants = meshGrantsOf(profile, root);
  const own = meshGrantsOf(profile, role);
  const rootHasMesh = rootGrants.spawn.length + rootGrants.control.length > 0;
  const ownHasMesh = own.spawn.length + own.control.length > 0;
  if (!rootHasMesh && !ownHasMesh) return undefined;
  const effective = rootHasMesh ? rootGrants : null;
  if (
    effective !== null &&
    sameList(effective.spawn, own.spawn) &&
    sameList(effective.control, own.control)
  ) {
    return undefined;
  }
  return { effective, own };
}

/** Difference between every native role and its process root, per process. */
export function nativeRoleDeltas(profile: ProfileData, plan: ResolvedPlan): NativeRoleDelta[] {
  const out: NativeRoleDelta[] = [];
  const varsOf = (servers: readonly string[]): string[] => {
    const names = new Set<string>();
    for (const server of servers) {
      const definition = plan.servers[server];
      if (definition !== undefined) for (const n of referencedEnvVars(definition)) names.add(n);
    }
    return [...names].sort();
  };
  for (const process of plan.processes) {
    const root = plan.roles[process.root];
    if (root === undefined) continue;
    const rootVars = new Set(varsOf(Object.keys(root.grants)));
    for (const name of process.roles) {
      if (name === process.root) continue;
      const role = plan.roles[name];
      if (role === undefined) continue;
      const gains: ServerTools[] = [];
      const loses: ServerTools[] = [];
      const requiredDiffers: string[] = [];
      const servers = [
        ...new Set([...Object.keys(root.grants), ...Object.keys(role.grants)]),
      ].sort();
      for (const server of servers) {
        const rootTools = ownValue(root.grants, server)?.enabled_tools ?? [];
        const roleTools = ownValue(role.grants, server)?.enabled_tools ?? [];
        const gained = rootTools.filter((t) => !roleTools.includes(t));
        const lost = roleTools.filter((t) => !rootTools.includes(t));
        if (gained.length > 0) gains.push({ server, tools: gained });
        if (lost.length > 0) loses.push({ server, tools: lost });
        const rootGrant = ownValue(root.grants, server);
        const roleGrant = ownValue(role.grants, server);
        if (rootGrant && roleGrant && rootGrant.required !== roleGrant.required) {
          requiredDiffers.push(server);
        }
      }
      const env = varsOf(Object.keys(role.grants));
      const mesh = meshDelta(profile, process.root, name);
      out.push({
        process: process.root,
        role: name,
        gains,
        loses,
        requiredDiffers,
        env,
        envBeyondRoot: env.filter((n) => !rootVars.has(n)),
        ...(mesh !== undefined ? { mesh } : {}),
      });
    }
  }
  return out;
}

function formatMeshGrants(grants: MeshGrants): string {
  const list = (names: readonly string[]): string => (names.length > 0 ? names.join(', ') : 'none');
  return `spawn ${list(grants.spawn)}; control ${list(grants.control)}`;
}

/** The sentence about `mmo_mesh` in a `native-role-not-isolated` warning. */
function meshSentence(delta: NativeRoleDelta, mesh: MeshDelta): string {
  const own = mesh.own.spawn.length + mesh.own.control.length > 0;
  if (mesh.effective === null) {
    return `it will LOSE mmo_mesh: its own participant grants (${formatMeshGrants(mesh.own)}) cannot be used, because \`${delta.process}\` has neither spawn nor control`;
  }
  return own
    ? `through mmo_mesh it acts with \`${delta.process}\`'s participant grants (${formatMeshGrants(mesh.effective)}), not its own (${formatMeshGrants(mesh.own)})`
    : `it will GAIN mmo_mesh with \`${delta.process}\`'s participant grants (${formatMeshGrants(mesh.effective)})`;
}

/**
 * The `native-role-not-isolated` warning of a native role when the model wire narrows what each
 * role is offered: the process then enables the union of its roles' grants (mmo_mesh included),
 * the wire narrows every role to its own and the gateway and broker refuse, by calling thread,
 * the tools and mesh calls of other roles. What is left is `required`: a server some role of the
 * process requires is required for the whole process. Undefined when nothing is left.
 */
function narrowedWarning(
  delta: NativeRoleDelta,
  plan: ResolvedPlan,
  where: ReturnType<typeof keyLocation>,
  series: string,
): Diagnostic | undefined {
  const grants = plan.roles[delta.role]?.grants ?? {};
  const required = delta.requiredDiffers.filter((server) => grants[server]?.required === false);
  if (required.length === 0) return undefined;
  return diagnostic({
    severity: 'warning',
    code: 'native-role-not-isolated',
    message: `native role \`${delta.role}\` runs inside \`${delta.process}\`'s Codex process (Codex ${series} starts a native role with its process's MCP servers): \`required\` of ${required.join(', ')} follows the process, which waits for a server any of its roles requires. Where isolation matters, make \`${delta.role}\` a participant role (list it in \`spawn\` instead of \`native_agents\`)`,
    ...where,
  });
}

function formatTools(groups: readonly ServerTools[]): string {
  return groups.map((g) => g.tools.map((t) => `${g.server}:${t}`).join(', ')).join(', ');
}

/**
 * Where each native role of each process is first listed in `native_agents` by a role of that
 * process: process root → role → key path. One pass over the processes' members.
 */
function nativeListings(
  profile: ProfileData,
  plan: ResolvedPlan,
): Map<string, Map<string, KeyPath>> {
  const out = new Map<string, Map<string, KeyPath>>();
  for (const process of plan.processes) {
    const listings = new Map<string, KeyPath>();
    for (const member of process.roles) {
      profile.agents[member]?.native_agents.forEach((role, index) => {
        if (!listings.has(role)) listings.set(role, ['agents', member, 'native_agents', index]);
      });
    }
    out.set(process.root, listings);
  }
  return out;
}

/**
 * `native-role-not-isolated` (warning) for every native role whose effective tools — Tool MCP
 * servers and `mmo_mesh` reach — differ from its own grants, and `native-role-shares-environment`
 * (info) when a native role's servers use credentials, which no Codex process receives.
 * The statements name the Codex version they describe (default: the newest supported); a version
 * that isolates native roles gets no `native-role-not-isolated`.
 */
export function nativeIsolationDiagnostics(
  profile: ProfileData,
  plan: ResolvedPlan,
  source?: PlanSource,
  codex: CodexVersionFacts = NEWEST_CODEX,
  wire?: NativeEnforcement,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const listings = nativeListings(profile, plan);
  for (const delta of nativeRoleDeltas(profile, plan)) {
    const path = listings.get(delta.process)?.get(delta.role) ?? ['agents', delta.role];
    const where = keyLocation(source?.file, source?.positions, path);
    const differs =
      !codex.nativeRolesIsolated &&
      (delta.gains.length > 0 ||
        delta.loses.length > 0 ||
        delta.requiredDiffers.length > 0 ||
        delta.mesh !== undefined);
    if (differs && wire?.narrows === true) {
      const narrowed = narrowedWarning(delta, plan, where, codex.series);
      if (narrowed !== undefined) out.push(narrowed);
    } else if (differs) {
      const parts: string[] = [];
      if (delta.gains.length > 0) {
        parts.push(
          `it will GAIN ${formatTools(delta.gains)} (granted to \`${delta.process}\`, not to \`${delta.role}\`)`,
        );
      }
      if (delta.loses.length > 0) {
        parts.push(
          `it will LOSE ${formatTools(delta.loses)} (granted to \`${delta.role}\`, not to \`${delta.process}\`)`,
        );
      }
      if (delta.mesh !== undefined) parts.push(meshSentence(delta, delta.mesh));
      if (delta.requiredDiffers.length > 0) {
        parts.push(
          `\`required\` of ${delta.requiredDiffers.join(', ')} follows \`${delta.process}\`'s grant`,
        );
      }
      const why = wire?.narrows === false ? ` (${wire.reason})` : '';
      out.push(
        diagnostic({
          severity: 'warning',
          code: 'native-role-not-isolated',
          message: `native role \`${delta.role}\` runs inside \`${delta.process}\`'s Codex process, and Codex ${codex.series} gives a native role its parent's MCP servers, tool filters and approval modes, not its own grants${why}: ${parts.join('; ')}. Where isolation matters, make \`${delta.role}\` a participant role (list it in \`spawn\` instead of \`native_agents\`, so it is launched through mmo_mesh as its own Codex process with its own configuration)`,
          ...where,
        }),
      );
    }
    if (delta.env.length > 0) {
      const names = delta.envBeyondRoot.length > 0 ? delta.envBeyondRoot : delta.env;
      out.push(
        diagnostic({
          severity: 'info',
          code: 'native-role-shares-environment',
          message: `native role \`${delta.role}\` runs inside \`${delta.process}\`'s Codex process and uses servers that need ${names.join(', ')}; their values stay in the supervising codex-mmo process and the server processes it starts — no Codex process, root or native, receives them — and the gateway checks each call against the calling role's own grant. Only the process's server connections are shared, not credentials`,
          ...where,
        }),
      );
    }
  }
  return out;
}
