/**
 * The stable diagnostic codes of registry validation (schema version 8). Scripts may match on
 * these codes; each rejection class has its own. TOML decoding codes (`invalid-utf8`,
 * `toml-syntax`) come from the TOML layer and are listed here for completeness.
 */
import type { Severity } from '../diagnostics/diagnostic.js';

export interface CodeInfo {
  readonly severity: Severity;
  /** What the code means, for documentation. */
  readonly summary: string;
}

export const REGISTRY_CODES = {
  'invalid-utf8': { severity: 'error', summary: 'The fragment is not valid UTF-8.' },
  'toml-syntax': {
    severity: 'error',
    summary: 'The fragment is not valid TOML (or contains NUL).',
  },
  'schema-version-missing': {
    severity: 'error',
    summary: 'The fragment (possibly empty) has no `schema_version = 8`.',
  },
  'schema-version-unsupported': {
    severity: 'error',
    summary: '`schema_version` is not the integer 8.',
  },
  'unknown-top-level-key': {
    severity: 'error',
    summary: 'A top-level key other than `schema_version` and `tool_mcp_servers`.',
  },
  'server-not-table': {
    severity: 'error',
    summary: '`tool_mcp_servers` or one of its entries is not a table.',
  },
  'invalid-server-id': {
    severity: 'error',
    summary: 'A server ID outside `^[a-z][a-z0-9_-]{0,63}$`, or one shaped like a credential.',
  },
  'reserved-server-id': {
    severity: 'error',
    summary: 'The server ID `mmo_mesh` is reserved for the runtime.',
  },
  'missing-field': {
    severity: 'error',
    summary:
      'A required field is absent (`transport`, `command`, `url`, `enabled_tools`, `default_tools_approval_mode`, `tools.<tool>.approval_mode`).',
  },
  'invalid-type': {
    severity: 'error',
    summary: 'A field has the wrong TOML type (string, array of strings, table, number, boolean).',
  },
  'invalid-transport': {
    severity: 'error',
    summary: '`transport` is not `stdio` or `streamable_http`.',
  },
  'invalid-command': {
    severity: 'error',
    summary: '`command` is empty, has control characters, or carries arguments.',
  },
  'relative-path': {
    severity: 'error',
    summary: '`command` with a `/`, or `cwd`, that is neither absolute nor `~/`.',
  },
  'invalid-url': {
    severity: 'error',
    summary: '`url` is not an absolute `http`/`https` URL.',
  },
  'url-userinfo': {
    severity: 'error',
    summary: '`url` contains a user name or password.',
  },
  'url-credential': {
    severity: 'error',
    summary: '`url` carries a credential-looking query parameter or token-shaped value.',
  },
  'insecure-http': {
    severity: 'error',
    summary: 'Plain `http` to a host that is not loopback (127.0.0.0/8, ::1, localhost).',
  },
  'invalid-env-var-name': {
    severity: 'error',
    summary: 'An environment variable name outside `^[A-Za-z_][A-Za-z0-9_]*$`.',
  },
  'nul-character': {
    severity: 'error',
    summary: 'A NUL character in `cwd`, an `args` entry or an `env` value.',
  },
  'invalid-header-name': {
    severity: 'error',
    summary: 'An HTTP header name with characters outside the HTTP token set.',
  },
  'invalid-header-value': {
    severity: 'error',
    summary: 'A literal HTTP header value with control characters (CR, LF, NUL, …).',
  },
  'invalid-tool-name': {
    severity: 'error',
    summary: 'An `enabled_tools` entry that is empty or has whitespace or control characters.',
  },
  'empty-enabled-tools': {
    severity: 'error',
    summary: '`enabled_tools` is empty; it must list at least one tool.',
  },
  'duplicate-entry': {
    severity: 'error',
    summary: 'A repeated entry in `enabled_tools` or `env_vars`.',
  },
  'invalid-approval-mode': {
    severity: 'error',
    summary: 'An approval mode other than `auto`, `prompt`, `writes`, `approve`.',
  },
  'invalid-timeout': {
    severity: 'error',
    summary: 'A timeout that is not a positive, finite number of seconds.',
  },
  'tool-not-enabled': {
    severity: 'error',
    summary: '`tools.<tool>` names a tool outside `enabled_tools`.',
  },
  'oauth-field': {
    severity: 'error',
    summary: 'OAuth fields (`oauth`, `oauth_resource`, `scopes`, `auth`) are not supported.',
  },
  'plaintext-bearer-token': {
    severity: 'error',
    summary: '`bearer_token` holds a plaintext secret; use `bearer_token_env_var`.',
  },
  'credential-literal-name': {
    severity: 'error',
    summary: 'A literal `env` or `http_headers` entry whose name marks it as a credential.',
  },
  'credential-literal-value': {
    severity: 'error',
    summary:
      'A literal value (in `env`, `http_headers`, `args`, or where a variable name belongs) shaped like a credential.',
  },
  'wrong-transport-field': {
    severity: 'error',
    summary: 'A field that belongs to the other transport.',
  },
  'grant-owned-field': {
    severity: 'error',
    summary: '`enabled`, `required`, `disabled_tools`: profile grants own these.',
  },
  'unsupported-field': {
    severity: 'error',
    summary:
      'A Codex field codex-mmo does not support (`startup_timeout_ms`, `http_headers_helper`, `environment_id`, `omit_tools_from`, `name`, `type`).',
  },
  'unknown-field': {
    severity: 'error',
    summary: 'Any other unknown field (with a did-you-mean suggestion).',
  },
  'server-replaced': {
    severity: 'info',
    summary: 'A later fragment replaced the whole definition of an ID from an earlier one.',
  },
} as const satisfies Record<string, CodeInfo>;

export type RegistryCode = keyof typeof REGISTRY_CODES;
