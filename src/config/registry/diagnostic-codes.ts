/**
 * The stable diagnostic codes of the operator registry: reading `tool-mcp.d` and its fragments,
 * validating them (schema version 8), `credentials.env`, readiness, and looking a server up.
 * Scripts may match on these codes; each rejection class has its own. TOML decoding codes
 * (`invalid-utf8`, `toml-syntax`) come from the TOML layer and are listed here for completeness.
 */
import {
  diagnostic,
  type Diagnostic,
  type DiagnosticInit,
  type Severity,
} from '../../foundation/diagnostics/diagnostic.js';
import { REGISTRY_SCHEMA_VERSION } from './types.js';

/**
 * Where a code comes from: reading files (`load`), validating fragment content (`fragment`, the
 * fixture corpus covers every one), `credentials.env` (`credentials`), readiness checks
 * (`readiness`), looking up a server ID (`lookup`), or `tool-mcp import` / `export` reading or
 * writing another client's configuration (`import`, `export`).
 */
export type CodeStage =
  'load' | 'fragment' | 'credentials' | 'readiness' | 'lookup' | 'import' | 'export';

export interface CodeInfo {
  readonly severity: Severity;
  readonly stage: CodeStage;
  /** What the code means, for documentation. */
  readonly summary: string;
}

export const REGISTRY_CODES = {
  'invalid-utf8': {
    severity: 'error',
    stage: 'fragment',
    summary: 'The fragment is not valid UTF-8.',
  },
  'toml-syntax': {
    severity: 'error',
    stage: 'fragment',
    summary: 'The fragment is not valid TOML (or contains NUL).',
  },
  'schema-version-missing': {
    severity: 'error',
    stage: 'fragment',
    summary: `The fragment (possibly empty) has no \`schema_version = ${REGISTRY_SCHEMA_VERSION}\`.`,
  },
  'schema-version-unsupported': {
    severity: 'error',
    stage: 'fragment',
    summary: `\`schema_version\` is not the integer ${REGISTRY_SCHEMA_VERSION}.`,
  },
  'unknown-top-level-key': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A top-level key other than `schema_version` and `tool_mcp_servers`.',
  },
  'server-not-table': {
    severity: 'error',
    stage: 'fragment',
    summary: '`tool_mcp_servers` or one of its entries is not a table.',
  },
  'invalid-server-id': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A server ID outside `^[a-z][a-z0-9_-]{0,63}$`, or one shaped like a credential.',
  },
  'reserved-server-id': {
    severity: 'error',
    stage: 'fragment',
    summary: 'The server ID `mmo_mesh` is reserved for the runtime.',
  },
  'missing-field': {
    severity: 'error',
    stage: 'fragment',
    summary:
      'A required field is absent (`transport`, `command`, `url`, `enabled_tools`, `default_tools_approval_mode`, `tools.<tool>.approval_mode`).',
  },
  'invalid-type': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A field has the wrong TOML type (string, array of strings, table, number, boolean).',
  },
  'invalid-transport': {
    severity: 'error',
    stage: 'fragment',
    summary: '`transport` is not `stdio` or `streamable_http`.',
  },
  'invalid-command': {
    severity: 'error',
    stage: 'fragment',
    summary: '`command` is empty, has control characters, or carries arguments.',
  },
  'relative-path': {
    severity: 'error',
    stage: 'fragment',
    summary: '`command` with a `/`, or `cwd`, that is neither absolute nor `~/`.',
  },
  'invalid-url': {
    severity: 'error',
    stage: 'fragment',
    summary: '`url` is not an absolute `http`/`https` URL.',
  },
  'url-userinfo': {
    severity: 'error',
    stage: 'fragment',
    summary: '`url` contains a user name or password.',
  },
  'url-credential': {
    severity: 'error',
    stage: 'fragment',
    summary: '`url` carries a credential-looking query parameter or token-shaped value.',
  },
  'insecure-http': {
    severity: 'error',
    stage: 'fragment',
    summary: 'Plain `http` to a host that is not loopback (127.0.0.0/8, ::1, localhost).',
  },
  'invalid-env-var-name': {
    severity: 'error',
    stage: 'fragment',
    summary: 'An environment variable name outside `^[A-Za-z_][A-Za-z0-9_]*$`.',
  },
  'reserved-env-var': {
    severity: 'error',
    stage: 'fragment',
    summary:
      'A variable name starting with `CODEX_MMO_` (reserved for codex-mmo, e.g. the mmo_mesh credential) in `env_vars`, `env`, `bearer_token_env_var` or `env_http_headers`.',
  },
  'nul-character': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A NUL character in `cwd`, an `args` entry or an `env` value.',
  },
  'invalid-header-name': {
    severity: 'error',
    stage: 'fragment',
    summary: 'An HTTP header name with characters outside the HTTP token set.',
  },
  'invalid-header-value': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A literal HTTP header value with control characters (CR, LF, NUL, …).',
  },
  'invalid-tool-name': {
    severity: 'error',
    stage: 'fragment',
    summary: 'An `enabled_tools` entry that is empty or has whitespace or control characters.',
  },
  'empty-enabled-tools': {
    severity: 'error',
    stage: 'fragment',
    summary: '`enabled_tools` is empty; it must list at least one tool.',
  },
  'duplicate-entry': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A repeated entry in `enabled_tools` or `env_vars`.',
  },
  'invalid-approval-mode': {
    severity: 'error',
    stage: 'fragment',
    summary: 'An approval mode other than `auto`, `prompt`, `writes`, `approve`.',
  },
  'invalid-timeout': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A timeout that is not a positive, finite number of seconds.',
  },
  'tool-not-enabled': {
    severity: 'error',
    stage: 'fragment',
    summary: '`tools.<tool>` names a tool outside `enabled_tools`.',
  },
  'oauth-field': {
    severity: 'error',
    stage: 'fragment',
    summary: 'OAuth fields (`oauth`, `oauth_resource`, `scopes`, `auth`) are not supported.',
  },
  'plaintext-bearer-token': {
    severity: 'error',
    stage: 'fragment',
    summary: '`bearer_token` holds a plaintext secret; use `bearer_token_env_var`.',
  },
  'credential-literal-name': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A literal `env` or `http_headers` entry whose name marks it as a credential.',
  },
  'credential-literal-value': {
    severity: 'error',
    stage: 'fragment',
    summary:
      'A literal value (in `env`, `http_headers`, `args`, or where a variable name belongs) shaped like a credential.',
  },
  'wrong-transport-field': {
    severity: 'error',
    stage: 'fragment',
    summary: 'A field that belongs to the other transport.',
  },
  'grant-owned-field': {
    severity: 'error',
    stage: 'fragment',
    summary: '`enabled`, `required`, `disabled_tools`: profile grants own these.',
  },
  'unsupported-field': {
    severity: 'error',
    stage: 'fragment',
    summary:
      'A Codex field codex-mmo does not support (`startup_timeout_ms`, `http_headers_helper`, `environment_id`, `omit_tools_from`, `name`, `type`).',
  },
  'unknown-field': {
    severity: 'error',
    stage: 'fragment',
    summary: 'Any other unknown field (with a did-you-mean suggestion).',
  },
  'server-replaced': {
    severity: 'info',
    stage: 'fragment',
    summary: 'A later fragment replaced the whole definition of an ID from an earlier one.',
  },
  'config-dir-missing': {
    severity: 'warning',
    stage: 'load',
    summary:
      'The config directory itself does not exist (a mistyped `--config-dir`?): the registry is empty.',
  },
  'registry-dir-missing': {
    severity: 'info',
    stage: 'load',
    summary: '`tool-mcp.d` does not exist: the registry is empty.',
  },
  'registry-dir-unreadable': {
    severity: 'error',
    stage: 'load',
    summary: '`tool-mcp.d` exists but is not a directory that can be listed.',
  },
  'fragment-not-a-file': {
    severity: 'error',
    stage: 'load',
    summary: 'A `*.toml` entry of `tool-mcp.d` is a directory, named pipe, socket or device.',
  },
  'fragment-unreadable': {
    severity: 'error',
    stage: 'load',
    summary:
      'A fragment cannot be read: permission denied, a dangling or looping symbolic link, an I/O error.',
  },
  'fragment-too-large': {
    severity: 'error',
    stage: 'load',
    summary: 'A fragment is over the 1 MiB limit (registry fragments are a few KiB); split it.',
  },
  'credentials-file-permissions': {
    severity: 'warning',
    stage: 'credentials',
    summary: '`credentials.env` is accessible by group or others; `chmod 600` it.',
  },
  'credentials-file-unreadable': {
    severity: 'error',
    stage: 'credentials',
    summary:
      '`credentials.env` exists but is not a readable, parsable regular file under the 1 MiB limit.',
  },
  'credentials-syntax': {
    severity: 'error',
    stage: 'credentials',
    summary:
      'A `credentials.env` line is not a `NAME=value` assignment or `#` comment, or has text after a closing quote.',
  },
  'credentials-unterminated-quote': {
    severity: 'error',
    stage: 'credentials',
    summary: 'A `credentials.env` value opens a quote that is never closed.',
  },
  'credentials-value-hash': {
    severity: 'error',
    stage: 'credentials',
    summary:
      'An unquoted `credentials.env` value contains `#`, which dotenv readers take for a comment; quote the value.',
  },
  'credentials-nul-character': {
    severity: 'error',
    stage: 'credentials',
    summary:
      'A `credentials.env` value contains a NUL character, which no environment variable can hold.',
  },
  'credentials-invalid-utf8': {
    severity: 'error',
    stage: 'credentials',
    summary: 'A `credentials.env` line is not valid UTF-8.',
  },
  'known-credential-literal': {
    severity: 'error',
    stage: 'credentials',
    summary:
      'A literal (any value or key of a definition, of codex-base.toml or of a pack) contains the value of a known credential, as is or base64, hex or URL-encoded; named by key and variable, never by value.',
  },
  'missing-env-var': {
    severity: 'error',
    stage: 'readiness',
    summary:
      'A variable named by `env_vars`, `bearer_token_env_var` or `env_http_headers` is set neither in the launch environment nor in `credentials.env`.',
  },
  'command-not-found': {
    severity: 'error',
    stage: 'readiness',
    summary: 'A stdio `command` is not on `PATH`, or its absolute or `~/` path does not exist.',
  },
  'command-not-executable': {
    severity: 'error',
    stage: 'readiness',
    summary: 'A stdio `command` resolves to a file without execute permission, or to a directory.',
  },
  'cwd-not-found': {
    severity: 'error',
    stage: 'readiness',
    summary: 'A stdio `cwd` does not exist.',
  },
  'cwd-not-a-directory': {
    severity: 'error',
    stage: 'readiness',
    summary: 'A stdio `cwd` exists but is not a directory.',
  },
  'unknown-server': {
    severity: 'error',
    stage: 'lookup',
    summary: 'A command named a server ID the registry does not define (with a did-you-mean).',
  },
  'import-file-unreadable': {
    severity: 'error',
    stage: 'import',
    summary: 'The file to import is missing, not a regular file, too large or cannot be read.',
  },
  'import-syntax': {
    severity: 'error',
    stage: 'import',
    summary:
      "The file to import is not valid JSON or TOML (position given; the parser's quote of the file is left out).",
  },
  'import-format-unknown': {
    severity: 'error',
    stage: 'import',
    summary:
      '`--from` was not given and the file is neither a Codex `config.toml`, a Claude Code MCP file nor a `server.json`.',
  },
  'import-schema-unknown': {
    severity: 'error',
    stage: 'import',
    summary:
      'A `server.json` whose `$schema` is absent or a version import does not know (known: 2025-07-09, 2025-09-16, 2025-09-29, 2025-10-17, 2025-12-11).',
  },
  'import-no-servers': {
    severity: 'error',
    stage: 'import',
    summary:
      'The file defines no MCP server (no `[mcp_servers]`, `mcpServers`, `packages` or `remotes`).',
  },
  'import-invalid-entry': {
    severity: 'error',
    stage: 'import',
    summary:
      'A server entry is not an object, has a value of the wrong type, or has neither a command nor a URL.',
  },
  'import-unknown-field': {
    severity: 'error',
    stage: 'import',
    summary: 'A server entry has a key import does not know (allowlist), with a did-you-mean.',
  },
  'import-unsupported-transport': {
    severity: 'error',
    stage: 'import',
    summary:
      'The entry uses a transport or package kind the registry cannot run: SSE, a package served over HTTP, an `mcpb` or `nuget` package.',
  },
  'import-unsupported-auth': {
    severity: 'error',
    stage: 'import',
    summary:
      'The entry authenticates through OAuth (`oauth`, `scopes`, `oauth_resource`, `auth`) or a `headersHelper` command.',
  },
  'import-expansion-unsupported': {
    severity: 'error',
    stage: 'import',
    summary:
      'A `${VAR}` reference inside a command, argument, URL or a longer value: the registry passes variables whole and never expands them.',
  },
  'import-secret-argument': {
    severity: 'error',
    stage: 'import',
    summary:
      'An argument holds a secret (`--api-key VALUE`, a token-shaped value); the registry would store and show it.',
  },
  'import-invalid-id': {
    severity: 'error',
    stage: 'import',
    summary: "The server's name is not a registry ID; the message suggests one.",
  },
  'import-id-taken': {
    severity: 'error',
    stage: 'import',
    summary: 'The registry already defines a server with this ID (or its fragment file exists).',
  },
  'import-duplicate-id': {
    severity: 'error',
    stage: 'import',
    summary: 'Two servers of the import would get the same ID.',
  },
  'import-only-unknown': {
    severity: 'error',
    stage: 'import',
    summary:
      '`--only` or `--rename` names a server the file does not define (with a did-you-mean).',
  },
  'import-secret-moved': {
    severity: 'info',
    stage: 'import',
    summary:
      'A literal secret of the source was moved to `credentials.env` under the variable named (the value is never shown).',
  },
  'import-secret-not-moved': {
    severity: 'warning',
    stage: 'import',
    summary:
      'A literal secret of the source became a variable name in the fragment; without `--move-secrets` its value stays where it was and the variable must be set.',
  },
  'import-secret-conflict': {
    severity: 'error',
    stage: 'import',
    summary:
      '`--move-secrets` would give a variable a value other than the one it has (in `credentials.env`, the launch environment or another imported server).',
  },
  'import-default-kept': {
    severity: 'warning',
    stage: 'import',
    summary:
      "A `${VAR:-default}` lost part of its meaning: a non-secret default became a literal `env` value, or a header's default was dropped.",
  },
  'import-variable-renamed': {
    severity: 'warning',
    stage: 'import',
    summary:
      'A server variable was filled from a variable of another name (`"API_KEY": "${MY_KEY}"`); the registry forwards variables under their own name.',
  },
  'import-field-ignored': {
    severity: 'warning',
    stage: 'import',
    summary:
      'A setting of the source has no registry equivalent and is left out (`enabled = false`, `required`, per-tool settings, an optional package argument without a value).',
  },
  'import-tools-unknown': {
    severity: 'error',
    stage: 'import',
    summary:
      '`--no-probe` was given for a server whose source lists no tools; only a probe can fill `enabled_tools`.',
  },
  'import-argument-needs-value': {
    severity: 'error',
    stage: 'import',
    summary:
      'A required `server.json` argument or variable placeholder has no value import can write.',
  },
  'export-not-expressible': {
    severity: 'error',
    stage: 'export',
    summary:
      'The target format cannot describe the server (a `server.json` package must be an npm, PyPI or OCI package with a version).',
  },
  'export-field-dropped': {
    severity: 'warning',
    stage: 'export',
    summary:
      'A field of the registry entry has no equivalent in the target format and is left out (for example `cwd` or `enabled_tools` for Claude Code).',
  },
} as const satisfies Record<string, CodeInfo>;

export type RegistryCode = keyof typeof REGISTRY_CODES;

/** A diagnostic with a catalogued code, its severity taken from the catalogue. */
export function registryDiagnostic(
  code: RegistryCode,
  init: Omit<DiagnosticInit, 'code' | 'severity'>,
): Diagnostic {
  return diagnostic({ ...init, code, severity: REGISTRY_CODES[code].severity });
}
