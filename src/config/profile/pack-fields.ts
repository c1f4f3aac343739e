/**
 * The key catalogue of a profile pack (docs/design.md §4): which keys each table accepts, and which
 * keys belong to the operator's server definitions and therefore may never appear in a grant.
 */

export const PACK_FILE = 'profile.toml';

export const PACK_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
export const ROLE_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

export const TOP_LEVEL_KEYS = [
  'schema_version',
  'name',
  'description',
  'root',
  'agents',
  'budget',
] as const;

/** The ceilings a pack's `[budget]` may set, each a whole number above zero. */
export const BUDGET_KEYS = [
  'participants',
  'codex_processes',
  'server_processes',
  'memory_mb',
] as const;

export const ROLE_KEYS = [
  'description',
  'instructions',
  'instructions_file',
  'model',
  'permissions',
  'network_access',
  'native_agents',
  'spawn',
  'control',
  'tool_mcp_servers',
] as const;

export const GRANT_KEYS = ['required', 'enabled_tools'] as const;

/**
 * Keys of Codex 0.149's `[agents]` table that are settings, not roles (measured with
 * `codex app-server --strict-config`), with the value type Codex expects. Any other key under
 * `[agents]` is read as a role, so a role of one of these names would break the whole rendered
 * config ("invalid type: map, expected i32"); pack validation refuses such role names, and
 * codex-base.toml may set these (and only these) under `[agents]`.
 */
export const CODEX_AGENTS_SETTINGS: Readonly<Record<string, 'integer' | 'boolean' | 'string'>> = {
  max_threads: 'integer',
  max_concurrent_threads_per_session: 'integer',
  max_depth: 'integer',
  job_max_runtime_seconds: 'integer',
  interrupt_message: 'boolean',
  default_subagent_model: 'string',
  default_subagent_reasoning_effort: 'string',
};

/** The role-reference lists of a role, in the order they are checked. */
export const ROLE_REFERENCE_KEYS = ['native_agents', 'spawn', 'control'] as const;

/**
 * Keys of an operator server definition (and of Codex's `[mcp_servers.NAME]`) that a grant cannot
 * set: transport, launch, endpoint, credentials, headers, timeouts, approval policy, parallel-call
 * declaration and OAuth.
 */
export const SERVER_DEFINITION_KEYS: ReadonlySet<string> = new Set([
  'transport',
  'command',
  'args',
  'cwd',
  'env',
  'env_vars',
  'url',
  'bearer_token',
  'bearer_token_env_var',
  'http_headers',
  'env_http_headers',
  'http_headers_helper',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
  'default_tools_approval_mode',
  'approval_mode',
  'tools',
  'supports_parallel_tool_calls',
  'oauth',
  'oauth_resource',
  'scopes',
  'auth',
  'environment_id',
  'omit_tools_from',
  'name',
]);

/** Grant keys that exist in Codex's own configuration but are expressed differently in a pack. */
export const GRANT_KEY_ADVICE: Readonly<Record<string, string>> = {
  enabled: 'a grant always enables its server; to disable a server for this role, remove the grant',
  disabled_tools:
    'a pack narrows tools by listing the ones to keep in `enabled_tools`; the deny-list is derived from it',
};
