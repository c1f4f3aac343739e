/**
 * The data model of profile packs (roles and grants, never server definitions) and of the
 * resolved plan that grant resolution produces: processes, per-role grants, derived timeouts
 * and the environment variable names each Codex process may receive.
 */
import type { KeyPositions } from '../../foundation/toml/key-positions.js';
import type { ServerDefinition } from '../registry/types.js';

export const PROFILE_SCHEMA_VERSION = 8;
export const PERMISSIONS = ['read-only', 'workspace-write', 'full-access'] as const;
export type Permissions = (typeof PERMISSIONS)[number];

/** A grant as written in the pack. `enabled_tools` is absent when the pack omits it. */
export interface GrantSpec {
  readonly server: string;
  readonly required: boolean;
  readonly enabled_tools?: readonly string[];
}

export interface RoleSpec {
  readonly name: string;
  readonly description: string;
  /** The instruction text, inline or read from `instructions_file`. */
  readonly instructions: string;
  /** Pack-relative file the instructions came from, when they came from a file. */
  readonly instructions_file?: string;
  readonly model?: string;
  readonly permissions: Permissions;
  readonly network_access: boolean;
  readonly native_agents: readonly string[];
  readonly spawn: readonly string[];
  readonly control: readonly string[];
  /** Server ID → grant, in the order written. */
  readonly grants: Readonly<Record<string, GrantSpec>>;
}

/** A profile as pure data: what a snapshot stores (no paths, no positions). */
export interface ProfileData {
  readonly schema_version: typeof PROFILE_SCHEMA_VERSION;
  readonly name: string;
  readonly description?: string;
  readonly root: string;
  /** Role name → role, in the order written. */
  readonly agents: Readonly<Record<string, RoleSpec>>;
  /** The pack's own ceilings for its sessions (`[budget]`), applied within the operator's. */
  readonly budget?: PackBudget;
}

/** A pack's `[budget]`: ceilings a session of it keeps to, never above the operator's. */
export interface PackBudget {
  readonly participants?: number;
  readonly codex_processes?: number;
  readonly server_processes?: number;
  readonly memory_mb?: number;
}

/** A profile pack as loaded from disk. */
export interface ProfilePack extends ProfileData {
  /** Absolute path of the pack directory and of its profile.toml (for diagnostics). */
  readonly dir: string;
  readonly file: string;
  readonly positions?: KeyPositions;
}

/** The effective grant of one server to one role. */
export interface ResolvedGrant {
  /** The role's tools: the grant's subset or the operator's whole list. */
  readonly enabled_tools: readonly string[];
  /** Operator list minus `enabled_tools`, in operator order (empty when nothing is narrowed). */
  readonly disabled_tools: readonly string[];
  readonly required: boolean;
}

export interface ResolvedRole {
  readonly name: string;
  /** Server ID → effective grant, sorted by server ID. */
  readonly grants: Readonly<Record<string, ResolvedGrant>>;
  /** Lifecycle wait of a process rooted at this role (docs/design.md §5). */
  readonly lifecycle_wait_sec: number;
  /** `mmo_mesh` tool timeout for this role as caller, or null without spawn/control. */
  readonly mesh_tool_timeout_sec: number | null;
}

/** One Codex process: a root role plus its `native_agents` closure. */
export interface ResolvedProcess {
  readonly root: string;
  /** Root first, then reachable native roles in discovery order. */
  readonly roles: readonly string[];
  /** Union of servers granted to any role of the process, sorted. */
  readonly servers: readonly string[];
  readonly lifecycle_wait_sec: number;
  /** Variable names the process receives for its servers, sorted. */
  readonly env: readonly string[];
  /** Whether `mmo_mesh` is present (some role of the process has spawn or control). */
  readonly mesh: boolean;
}

export interface ResolvedPlan {
  readonly profile: string;
  readonly root: string;
  readonly roles: Readonly<Record<string, ResolvedRole>>;
  /** Session root process first, then participant processes in discovery order. */
  readonly processes: readonly ResolvedProcess[];
  /** Normalised definitions of every server granted anywhere in the profile, by ID. */
  readonly servers: Readonly<Record<string, ServerDefinition>>;
}

/** Codex's default MCP startup timeout, used when a definition sets none. */
export const CODEX_DEFAULT_STARTUP_TIMEOUT_SEC = 30;
/** Floor of the app-server lifecycle wait: twenty minutes. */
export const LIFECYCLE_WAIT_FLOOR_SEC = 1200;
/** Margin added to the largest startup timeout. */
export const LIFECYCLE_WAIT_MARGIN_SEC = 30;
/** Protocol overhead added to the `mmo_mesh` tool timeout. */
export const MESH_PROTOCOL_OVERHEAD_SEC = 60;
/**
 * Most role memberships a session's processes may have in total (each process counts its root
 * plus every native role in it). Each membership is a rendered config or role file restating
 * every server of its process, so this bounds what compile, render and doctor produce; a pack
 * whose native_agents/spawn graph exceeds it (dense cycles make it grow with roles²) is refused.
 */
export const MAX_PROCESS_MEMBERSHIPS = 10_000;
