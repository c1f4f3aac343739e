/**
 * The catalogue of schema-version-8 definition fields: which transport owns each accepted field,
 * its kind and description (shared by validation and the JSON Schema), and every known field that
 * is rejected, with the code and the advice its diagnostic gives.
 */
import type { RegistryCode } from './diagnostic-codes.js';
import type { Transport } from './types.js';

export const ENV_VAR_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** HTTP header field names: RFC 9110 `token` characters. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export const TRANSPORTS: readonly Transport[] = ['stdio', 'streamable_http'];

export type FieldKind =
  | 'transport'
  | 'command'
  | 'string-array'
  | 'path'
  | 'literal-table'
  | 'env-var-array'
  | 'url'
  | 'env-var-name'
  | 'header-env-table'
  | 'tool-array'
  | 'approval-mode'
  | 'timeout'
  | 'boolean'
  | 'tools-table';

export interface FieldSpec {
  readonly name: string;
  /** `both`, or the one transport that owns the field. */
  readonly transport: Transport | 'both';
  readonly kind: FieldKind;
  /** Required for every definition of the owning transport. */
  readonly required: boolean;
  readonly description: string;
}

/** Accepted fields, in the order a normalised definition lists them. */
export const FIELDS: readonly FieldSpec[] = [
  {
    name: 'transport',
    transport: 'both',
    kind: 'transport',
    required: true,
    description:
      'How Codex reaches the server: "stdio" (a local process) or "streamable_http" (an HTTP endpoint).',
  },
  {
    name: 'command',
    transport: 'stdio',
    kind: 'command',
    required: true,
    description:
      'Executable to start: a bare name looked up on PATH, an absolute path, or a ~/ path. Arguments go in args.',
  },
  {
    name: 'args',
    transport: 'stdio',
    kind: 'string-array',
    required: false,
    description: 'Arguments passed to command. Never put secrets here; use env_vars.',
  },
  {
    name: 'cwd',
    transport: 'stdio',
    kind: 'path',
    required: false,
    description: 'Working directory of the server process: an absolute or ~/ path.',
  },
  {
    name: 'env',
    transport: 'stdio',
    kind: 'literal-table',
    required: false,
    description:
      'Literal, non-secret environment variables for the server process. Secrets go in env_vars + credentials.env.',
  },
  {
    name: 'env_vars',
    transport: 'stdio',
    kind: 'env-var-array',
    required: false,
    description:
      'Names of environment variables forwarded to the server process; values come from the launch environment or credentials.env.',
  },
  {
    name: 'url',
    transport: 'streamable_http',
    kind: 'url',
    required: true,
    description:
      'Endpoint URL: https (or http to a loopback host only), without user info or credential query parameters.',
  },
  {
    name: 'bearer_token_env_var',
    transport: 'streamable_http',
    kind: 'env-var-name',
    required: false,
    description:
      'Name of the environment variable whose value is sent as "Authorization: Bearer <value>"; put the value in credentials.env.',
  },
  {
    name: 'http_headers',
    transport: 'streamable_http',
    kind: 'literal-table',
    required: false,
    description:
      'Literal, non-secret HTTP headers. Secret headers go in env_http_headers + credentials.env.',
  },
  {
    name: 'env_http_headers',
    transport: 'streamable_http',
    kind: 'header-env-table',
    required: false,
    description: 'HTTP header name → name of the environment variable holding its value.',
  },
  {
    name: 'enabled_tools',
    transport: 'both',
    kind: 'tool-array',
    required: true,
    description:
      "Non-empty list of unique tool names: the operator's maximum exposure for every profile.",
  },
  {
    name: 'default_tools_approval_mode',
    transport: 'both',
    kind: 'approval-mode',
    required: true,
    description:
      'Approval policy for tool calls: "auto", "prompt" (always ask), "writes" (ask unless read-only) or "approve" (never ask).',
  },
  {
    name: 'startup_timeout_sec',
    transport: 'both',
    kind: 'timeout',
    required: false,
    description: 'Seconds Codex waits for the server to start (Codex default 30).',
  },
  {
    name: 'tool_timeout_sec',
    transport: 'both',
    kind: 'timeout',
    required: false,
    description: 'Seconds one tool call may take (Codex default 300).',
  },
  {
    name: 'supports_parallel_tool_calls',
    transport: 'both',
    kind: 'boolean',
    required: false,
    description: 'Whether the server handles concurrent tool calls.',
  },
  {
    name: 'shared',
    transport: 'both',
    kind: 'boolean',
    required: false,
    description:
      'One instance of the server serves every Codex process of a session granted it (default false: one per process). Each call is still checked against the calling role, but whatever state the server keeps is shared between the roles.',
  },
  {
    name: 'tools',
    transport: 'both',
    kind: 'tools-table',
    required: false,
    description:
      'Per-tool overrides: tools.<tool>.approval_mode, for tools listed in enabled_tools.',
  },
];

export const FIELD_BY_NAME: ReadonlyMap<string, FieldSpec> = new Map(
  FIELDS.map((f) => [f.name, f]),
);

/** Fields a definition of `transport` accepts (all fields when the transport is unknown). */
export function fieldNamesFor(transport: Transport | undefined): string[] {
  return FIELDS.filter(
    (f) => transport === undefined || f.transport === 'both' || f.transport === transport,
  ).map((f) => f.name);
}

/** Keys accepted inside `tools.<tool>`. */
export const TOOL_OVERRIDE_FIELDS: readonly string[] = ['approval_mode'];

export interface RejectedField {
  readonly code: RegistryCode;
  /** The full diagnostic message: why and what to do instead. */
  readonly message: string;
}

const OAUTH_ADVICE =
  'OAuth is not supported for Tool MCP servers (tokens in .credentials.json are shared with unrelated servers); remove it and authenticate with bearer_token_env_var or env_http_headers, with the value in credentials.env';

const GRANT_ADVICE =
  'profile grants own this field ([agents.ROLE.tool_mcp_servers.ID] in a profile pack); remove it here and narrow exposure with enabled_tools';

/** Known fields that schema version 8 rejects, each with its own code and advice. */
export const REJECTED_FIELDS: ReadonlyMap<string, RejectedField> = new Map<string, RejectedField>([
  ['oauth', { code: 'oauth-field', message: `\`oauth\`: ${OAUTH_ADVICE}` }],
  ['oauth_resource', { code: 'oauth-field', message: `\`oauth_resource\`: ${OAUTH_ADVICE}` }],
  ['scopes', { code: 'oauth-field', message: `\`scopes\`: ${OAUTH_ADVICE}` }],
  ['auth', { code: 'oauth-field', message: `\`auth\`: ${OAUTH_ADVICE}` }],
  [
    'bearer_token',
    {
      code: 'plaintext-bearer-token',
      message:
        'plaintext bearer tokens are not allowed; set bearer_token_env_var = "NAME" and put NAME=<token> in credentials.env (or the launch environment)',
    },
  ],
  ['enabled', { code: 'grant-owned-field', message: `\`enabled\`: ${GRANT_ADVICE}` }],
  ['required', { code: 'grant-owned-field', message: `\`required\`: ${GRANT_ADVICE}` }],
  [
    'disabled_tools',
    {
      code: 'grant-owned-field',
      message:
        '`disabled_tools`: profile grants narrow tools (enabled_tools in [agents.ROLE.tool_mcp_servers.ID]); here, list only the tools to expose in enabled_tools',
    },
  ],
  [
    'startup_timeout_ms',
    {
      code: 'unsupported-field',
      message: '`startup_timeout_ms` is not supported; use startup_timeout_sec (in seconds)',
    },
  ],
  [
    'http_headers_helper',
    {
      code: 'unsupported-field',
      message:
        '`http_headers_helper` is not supported (it runs a program to produce headers); use env_http_headers with the values in credentials.env',
    },
  ],
  [
    'environment_id',
    {
      code: 'unsupported-field',
      message:
        '`environment_id` is not supported; Tool MCP servers run where the Codex process runs, so remove it',
    },
  ],
  [
    'omit_tools_from',
    {
      code: 'unsupported-field',
      message:
        '`omit_tools_from` is not supported; control exposure with enabled_tools and per-role profile grants',
    },
  ],
  [
    'name',
    {
      code: 'unsupported-field',
      message:
        '`name` is not supported; a server is named by its ID, the key in [tool_mcp_servers.ID]',
    },
  ],
  [
    'type',
    {
      code: 'unsupported-field',
      message: '`type` is not supported; use transport = "stdio" or "streamable_http"',
    },
  ],
]);
