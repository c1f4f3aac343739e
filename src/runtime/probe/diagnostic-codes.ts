/**
 * The stable diagnostic codes of `tool-mcp probe` and `tool-mcp pin`, and of reading
 * `tool-mcp.lock`. Scripts may match on these codes. Probes also report the registry's readiness
 * codes (`command-not-found`, `cwd-not-found`, `missing-env-var`, …) for the probed server.
 */
import type { Severity } from '../../foundation/diagnostics/diagnostic.js';

export interface ProbeCodeInfo {
  readonly severity: Severity;
  /** What the code means, for documentation. */
  readonly summary: string;
}

export const PROBE_CODES = {
  'probe-start-failed': {
    severity: 'error',
    summary:
      'The server was not started (command, cwd or bearer token missing), could not be spawned or connected to, answered HTTP with an error, or exited before it was ready. Carries the tail of its stderr, credential values masked.',
  },
  'probe-timeout': {
    severity: 'error',
    summary: 'initialize and tools/list did not finish within startup_timeout_sec (default 30).',
  },
  'probe-protocol-error': {
    severity: 'error',
    summary:
      'The server broke MCP: an invalid or unsupported initialize result, a malformed tools/list page, endless pagination, or only non-JSON-RPC output.',
  },
  'probe-protocol-noise': {
    severity: 'warning',
    summary:
      'The server wrote stdout lines that are not JSON-RPC (Codex skips them). An error when that was all it wrote.',
  },
  'probe-duplicate-tool': {
    severity: 'warning',
    summary: 'tools/list named the same tool twice; the first one is used.',
  },
  'tool-not-offered': {
    severity: 'error',
    summary:
      'A name in enabled_tools (or a tools.<t> override) that the server does not offer; Codex would silently drop it. Suggests the nearest offered name.',
  },
  'approval-mode-risk': {
    severity: 'warning',
    summary:
      'The effective approval mode runs a tool without asking although the tool may write (not annotated read-only, annotated destructive, or not annotated at all).',
  },
  'tool-offered-not-enabled': {
    severity: 'info',
    summary: 'Tools the server offers that enabled_tools leaves out (listed once per server).',
  },
  'tool-drift': {
    severity: 'error',
    summary:
      'An enabled tool differs from its pin in tool-mcp.lock in any field as listed (description, title, input or output schema, annotations, `_meta`, any other); says which field changed and how. `tool-mcp pin ID` accepts the new surface.',
  },
  'server-drift': {
    severity: 'error',
    summary:
      'What the server says of itself differs from its pin: its initialize instructions, its serverInfo, or the resources, resource templates or prompts it lists; says which part changed and how. `tool-mcp pin ID` accepts it.',
  },
  'pin-incomplete': {
    severity: 'warning',
    summary:
      "The pin was written before pins covered the server's instructions, server info, every field of every tool, resources and prompts (lock_version 1 or 2), so a change to them is not noticed. `tool-mcp pin ID` records them.",
  },
  'tool-not-pinned': {
    severity: 'warning',
    summary:
      'The server has a pin, but an enabled tool is not in it (offered but not enabled when pinned, or a pin that did not record the offered tools).',
  },
  'server-not-pinned': {
    severity: 'info',
    summary: 'The server has no pin in tool-mcp.lock yet.',
  },
  'definition-drift': {
    severity: 'error',
    summary:
      "A server's definition (command or the executable it resolves to, package version, args, cwd, literal env, variable names, URL, header names) differs from the one recorded by `tool-mcp pin`; says what changed. Reported by validate, doctor, probe and at session start without starting the server; `tool-mcp pin ID` accepts it.",
  },
  'pin-definition-missing': {
    severity: 'warning',
    summary:
      'The pin was written before pins recorded the server definition (lock_version 1), so a changed definition cannot be noticed. `tool-mcp pin ID` records it.',
  },
  'server-identity-changed': {
    severity: 'error',
    summary:
      'The server reports another name (error) or version (warning) in initialize than when it was pinned. `tool-mcp pin ID` accepts it.',
  },
  'tool-not-in-pin': {
    severity: 'error',
    summary:
      'A name in enabled_tools that the server did not offer when it was pinned (checked offline by validate and doctor); suggests the nearest pinned name.',
  },
  'package-version-unpinned': {
    severity: 'warning',
    summary:
      'A stdio command runs a package through npx, uvx or a similar runner without a version, so each start may fetch different code.',
  },
  'lock-file-unreadable': {
    severity: 'error',
    summary: 'tool-mcp.lock exists but is not a readable regular file of sane size.',
  },
  'lock-file-invalid': {
    severity: 'error',
    summary:
      'tool-mcp.lock has a wrong lock_version or a malformed entry (that entry is ignored; `tool-mcp pin ID` rewrites it).',
  },
  'lock-file-unknown-key': {
    severity: 'warning',
    summary: 'tool-mcp.lock has a key this version does not know; it is ignored.',
  },
} as const satisfies Record<string, ProbeCodeInfo>;

export type ProbeCode = keyof typeof PROBE_CODES;
