/**
 * The operator registry's data model (schema version 8): normalised Tool MCP server definitions
 * as validated from `tool-mcp.d/*.toml`, with the provenance of each entry.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { KeyPositions } from '../../foundation/toml/key-positions.js';

export const REGISTRY_SCHEMA_VERSION = 8;
export const RESERVED_SERVER_ID = 'mmo_mesh';
export const SERVER_ID_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

export type Transport = 'stdio' | 'streamable_http';
export const APPROVAL_MODES = ['auto', 'prompt', 'writes', 'approve'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export interface ToolOverride {
  readonly approval_mode: ApprovalMode;
}

/** Fields both transports accept. Optional fields are absent (never `undefined`) when unset. */
export interface CommonDefinition {
  readonly id: string;
  /** The operator's maximum exposure; non-empty, unique, in the order written. */
  readonly enabled_tools: readonly string[];
  readonly default_tools_approval_mode: ApprovalMode;
  readonly startup_timeout_sec?: number;
  readonly tool_timeout_sec?: number;
  readonly supports_parallel_tool_calls?: boolean;
  /** One upstream instance serves every Codex process of a session granted the server. */
  readonly shared?: boolean;
  /** Per-tool approval overrides; every key is in `enabled_tools`. */
  readonly tools?: Readonly<Record<string, ToolOverride>>;
}

export interface StdioDefinition extends CommonDefinition {
  readonly transport: 'stdio';
  /** A bare executable name (resolved through PATH at readiness/launch) or an absolute or `~/` path. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Absolute or `~/` path, as written. */
  readonly cwd?: string;
  /** Literal, non-secret values. */
  readonly env?: Readonly<Record<string, string>>;
  /** Names of environment variables forwarded to the server. */
  readonly env_vars?: readonly string[];
}

export interface HttpDefinition extends CommonDefinition {
  readonly transport: 'streamable_http';
  readonly url: string;
  readonly bearer_token_env_var?: string;
  /** Literal, non-secret header values. */
  readonly http_headers?: Readonly<Record<string, string>>;
  /** Header name → environment variable name. */
  readonly env_http_headers?: Readonly<Record<string, string>>;
}

export type ServerDefinition = StdioDefinition | HttpDefinition;

/** One fragment file as read from disk (IO shell output, pure core input). */
export interface FragmentSource {
  /** Path used in diagnostics and provenance (absolute). */
  readonly file: string;
  readonly bytes: Uint8Array;
}

export interface RegistryEntry {
  readonly definition: ServerDefinition;
  /** The fragment whose definition won. */
  readonly file: string;
  /** Line/column of the `[tool_mcp_servers.ID]` table in `file`. */
  readonly line?: number;
  readonly column?: number;
  /** Earlier fragments whose definitions of the same ID this one replaced, in load order. */
  readonly replaces: readonly string[];
  /** Key positions in `file`, for later diagnostics about this entry. */
  readonly positions?: KeyPositions;
}

/** Status of an ID as validation saw it, valid or not (for `validate --json` "servers"). */
export interface ServerStatus {
  readonly id: string;
  readonly transport?: Transport;
  readonly file: string;
  readonly ok: boolean;
}

export interface Registry {
  /** Valid entries only, sorted by ID. An ID whose winning definition is invalid is absent. */
  readonly servers: ReadonlyMap<string, RegistryEntry>;
  /** Every ID seen, with the winning file and whether its definition is valid, sorted by ID. */
  readonly statuses: readonly ServerStatus[];
  /** The fragment files, in load order. */
  readonly files: readonly string[];
  /** Every problem of every fragment (errors, warnings). */
  readonly diagnostics: readonly Diagnostic[];
}

/** Every environment variable name a definition references (env_vars, bearer token, env headers). */
export function referencedEnvVars(definition: ServerDefinition): string[] {
  const names: string[] = [];
  if (definition.transport === 'stdio') {
    names.push(...(definition.env_vars ?? []));
  } else {
    if (definition.bearer_token_env_var !== undefined) names.push(definition.bearer_token_env_var);
    names.push(...Object.values(definition.env_http_headers ?? {}));
  }
  return [...new Set(names)];
}
