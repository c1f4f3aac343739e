/**
 * The stable diagnostic codes of profile packs, grant resolution, installation and `profile
 * doctor`, with their usual severity and meaning. Scripts may rely on these codes.
 */
import type { Severity } from '../../foundation/diagnostics/diagnostic.js';
import { PROFILE_SCHEMA_VERSION } from './types.js';

export interface CodeInfo {
  readonly severity: Severity;
  readonly meaning: string;
}

export const PROFILE_DIAGNOSTIC_CODES: Readonly<Record<string, CodeInfo>> = {
  // pack format (profile.toml)
  'toml-syntax': { severity: 'error', meaning: 'profile.toml is not valid TOML' },
  'invalid-utf8': {
    severity: 'error',
    meaning: 'profile.toml or an instruction file is not UTF-8',
  },
  'missing-field': { severity: 'error', meaning: 'a required key is absent' },
  'schema-version-unsupported': {
    severity: 'error',
    meaning: `schema_version is not ${PROFILE_SCHEMA_VERSION}`,
  },
  'invalid-type': { severity: 'error', meaning: 'a value has the wrong type' },
  'invalid-value': {
    severity: 'error',
    meaning: 'a value is empty or not one of the allowed values',
  },
  'invalid-name': {
    severity: 'error',
    meaning: 'the pack name does not match ^[a-z][a-z0-9_-]{0,63}$',
  },
  'invalid-role-name': {
    severity: 'error',
    meaning: 'a role name does not match ^[a-z][a-z0-9_-]{0,63}$',
  },
  'reserved-role-name': {
    severity: 'error',
    meaning: "a role named like one of Codex's own [agents] settings (max_threads, max_depth, …)",
  },
  'network-access-ignored': {
    severity: 'warning',
    meaning:
      'network_access = true with read-only, or false with full-access: Codex has no such setting, so it has no effect',
  },
  'self-spawn': {
    severity: 'warning',
    meaning:
      'a role lists itself in spawn: its participants can start one another up to the participant limit',
  },
  'sandbox-reads-unrestricted': {
    severity: 'warning',
    meaning:
      'a full-access role: Codex cannot deny its shell reads of operator files or other processes',
  },
  'unknown-key': {
    severity: 'error',
    meaning: 'a key the pack format does not have (with a suggestion)',
  },
  'unknown-role': {
    severity: 'error',
    meaning: 'root, native_agents, spawn or control names an undefined role',
  },
  'duplicate-role-reference': { severity: 'error', meaning: 'a role is listed twice in one list' },
  'missing-instructions': {
    severity: 'error',
    meaning: 'a role has neither instructions nor instructions_file',
  },
  'instructions-conflict': {
    severity: 'error',
    meaning: 'a role has both instructions and instructions_file',
  },
  'instructions-file-outside-pack': {
    severity: 'error',
    meaning: 'instructions_file is absolute, leaves the pack, or is a symlink leading outside it',
  },
  'instructions-file-not-found': {
    severity: 'error',
    meaning: 'instructions_file does not exist or is not a file',
  },
  'instructions-file-binary': {
    severity: 'error',
    meaning: 'instructions_file holds NUL bytes: a binary file, not text',
  },
  'instructions-file-unreadable': {
    severity: 'error',
    meaning: 'instructions_file cannot be read',
  },
  'file-too-large': {
    severity: 'error',
    meaning: 'profile.toml or an instruction file is over 1 MiB',
  },
  'pack-defines-servers': {
    severity: 'error',
    meaning:
      'a top-level tool_mcp_servers/mcp_servers table: the operator registry owns definitions',
  },
  'server-field-in-pack': {
    severity: 'error',
    meaning:
      'a server-definition field at the top level or in a role: the operator registry owns it',
  },
  'server-field-in-grant': {
    severity: 'error',
    meaning:
      'a grant sets a server-definition field (command, url, env, headers, timeouts, approval, oauth…)',
  },
  'reserved-server-grant': { severity: 'error', meaning: 'a grant of the runtime-owned mmo_mesh' },
  'invalid-server-id': { severity: 'error', meaning: 'a grant key is not a valid server ID' },
  'empty-enabled-tools': { severity: 'error', meaning: 'a grant lists no tools' },
  'duplicate-tool': { severity: 'error', meaning: 'a grant lists a tool twice' },
  // finding and installing packs
  'pack-not-found': {
    severity: 'error',
    meaning: 'the pack directory or its profile.toml is missing',
  },
  'pack-unreadable': {
    severity: 'error',
    meaning: 'the pack directory or a pack file cannot be read',
  },
  'profile-not-found': {
    severity: 'error',
    meaning: 'neither an installed pack nor a pack directory',
  },
  'pack-exists': {
    severity: 'error',
    meaning: 'a different pack of that name is installed (use --force)',
  },
  'install-failed': {
    severity: 'error',
    meaning: 'copying the pack into the data directory failed',
  },
  'pack-name-mismatch': {
    severity: 'error',
    meaning: 'an installed directory name differs from the pack name',
  },
  'pack-file-outside-pack': {
    severity: 'error',
    meaning: 'profile.toml is a symbolic link that leads outside the pack directory',
  },
  'special-filesystem': {
    severity: 'error',
    meaning: 'a pack or data directory on procfs, sysfs or another kernel pseudo-filesystem',
  },
  'grant-unresolved': {
    severity: 'warning',
    meaning: 'profile install: a grant that does not resolve against the operator registry',
  },
  // grant resolution against the registry
  'unknown-server': {
    severity: 'error',
    meaning: 'a grant of a server the registry does not define',
  },
  'invalid-server-grant': {
    severity: 'error',
    meaning: 'a grant of a server whose registry definition is invalid',
  },
  'plan-too-large': {
    severity: 'error',
    meaning:
      'the processes would hold more than 10,000 role memberships (dense native_agents/spawn cycles)',
  },
  'tool-not-allowed': {
    severity: 'error',
    meaning: "a granted tool is outside the operator's enabled_tools",
  },
  // profile doctor
  'missing-env-var': {
    severity: 'error',
    meaning:
      'a referenced variable is unset: error for a required grant, warning when no grant requires it',
  },
  'containment-unavailable': {
    severity: 'warning',
    meaning:
      'processes cannot be contained here (no unshare or setpriv, or namespaces not allowed): an error for a profile with a full-access role',
  },
  'host-view-unavailable': {
    severity: 'warning',
    meaning:
      "the host view cannot be built here (no bwrap, no user namespaces, or an unknown architecture): shells share /tmp and /run/user and, with network on, reach the operator's Unix sockets",
  },
  'host-view-required': {
    severity: 'error',
    meaning:
      'the host view cannot be built here and a role has network on: the session does not start without --accept-host-risk',
  },
  'codex-not-found': { severity: 'error', meaning: 'the Codex binary cannot be found' },
  'codex-not-runnable': {
    severity: 'error',
    meaning: '`codex --version` fails or prints no version',
  },
  'codex-version-untested': {
    severity: 'warning',
    meaning: 'Codex is not one of the supported versions (docs/codex-versions.md)',
  },
  'native-role-not-isolated': {
    severity: 'warning',
    meaning: "a native role's grants differ from its process root's, which Codex does not enforce",
  },
  'mcp-revision': {
    severity: 'info',
    meaning: "the MCP revision the detected Codex speaks to the session's servers",
  },
  'codex-key-unsupported': {
    severity: 'warning',
    meaning: 'a codex-base.toml key the detected Codex version does not accept',
  },
  'server-name-collision': {
    severity: 'error',
    meaning: 'two servers of one Codex process would be offered to the model under one name',
  },
  'native-role-shares-environment': {
    severity: 'info',
    meaning:
      'a native role uses servers that need credentials; the values stay with the supervisor and the servers, no Codex process receives them',
  },
  'server-not-pinned': {
    severity: 'info',
    meaning: 'a granted server has no pin in tool-mcp.lock',
  },
  'unapproved-mcp-tools': {
    severity: 'info',
    meaning:
      'a read-only role has tools that run without approval: permissions do not constrain MCP',
  },
  'approval-channel-unprotected': {
    severity: 'warning',
    meaning:
      'a full-access role has no sandbox: the approval key and the mesh and gateway tokens are readable',
  },
  'network-access-not-mcp': {
    severity: 'info',
    meaning: 'network_access = false does not stop Codex from reaching an HTTP MCP server',
  },
  'unreachable-role': { severity: 'info', meaning: 'a role that no session ever runs' },
  'registry-other-problems': {
    severity: 'info',
    meaning: 'registry problems that do not affect the profile (see tool-mcp validate)',
  },
  // doctor's model side (doctor-model.ts)
  'model-auth-missing': {
    severity: 'warning',
    meaning: 'no auth.json and no OPENAI_API_KEY for the OpenAI provider',
  },
  'model-login-required': {
    severity: 'error',
    meaning:
      'run or exec: no auth.json and no OPENAI_API_KEY for the OpenAI provider, so the session does not start',
  },
  'model-provider-unreachable': {
    severity: 'error',
    meaning:
      "run or exec: the model provider's address does not accept a connection, so the session does not start",
  },
  'model-provider-key-missing': {
    severity: 'error',
    meaning: "the selected provider's env_key variable is not set",
  },
  'codex-base-unknown-key': {
    severity: 'error',
    meaning: 'real Codex does not know a codex-base.toml key',
  },
  'codex-base-rejected': { severity: 'error', meaning: 'real Codex rejects codex-base.toml' },
};
