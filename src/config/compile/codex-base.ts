/**
 * The operator's optional `codex-base.toml`: Codex settings (model, providers, Codex's own
 * multi-agent limits under `[agents]`, …) copied into every rendered config. Keys the compiler
 * writes from the registry and the profile (servers, roles, instructions, sandbox) are refused
 * with their position, and so is anything that looks like a credential literal, because base
 * settings are stored in snapshots and written into rendered homes.
 */
import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { configFiles } from '../../foundation/paths/directories.js';
import { isCredentialName, isCredentialValue } from '../registry/credential-patterns.js';
import { safeKey } from '../registry/diagnostic-sink.js';
import { formatBytes, readConfigFile } from '../registry/read-config-file.js';
import type { FragmentSource } from '../registry/types.js';
import {
  formatKeyPath,
  type KeyPath,
  type KeyPositions,
} from '../../foundation/toml/key-positions.js';
import { parseTomlBytes, type TomlTable } from '../../foundation/toml/parse-toml.js';
import { CODEX_AGENTS_SETTINGS } from '../profile/pack-fields.js';

/** Top-level keys the compiler owns, each with what to do instead. */
export const COMPILER_OWNED_KEYS: Readonly<Record<string, string>> = {
  mcp_servers:
    'Tool MCP servers are compiled from the operator registry (tool-mcp.d/*.toml) and profile grants; define the server there',
  developer_instructions:
    "each role's instructions come from the profile pack (`instructions` or `instructions_file`)",
  instructions:
    "each role's instructions come from the profile pack (`instructions` or `instructions_file`)",
  model_instructions_file:
    "each role's instructions come from the profile pack (`instructions` or `instructions_file`)",
  experimental_instructions_file:
    "each role's instructions come from the profile pack (`instructions` or `instructions_file`)",
  sandbox_mode: "the sandbox comes from each role's `permissions` in the profile pack",
  sandbox_workspace_write:
    "the sandbox comes from each role's `permissions` and `network_access` in the profile pack",
  permissions: "the sandbox comes from each role's `permissions` in the profile pack",
  default_permissions: "the sandbox comes from each role's `permissions` in the profile pack",
  projects:
    'every session marks its working directory and the directories above it untrusted, so no project-local .codex/config.toml (its MCP servers included) reaches a session; write the settings you want in codex-base.toml itself, and Tool MCP servers in tool-mcp.d/*.toml',
  profile:
    'a Codex configuration profile could replace compiled settings; write the settings directly in codex-base.toml',
  profiles:
    'a Codex configuration profile could replace compiled settings; write the settings directly in codex-base.toml',
};

/**
 * `[agents]` in codex-base.toml: Codex 0.149 reads a key there either as one of its own
 * multi-agent settings (`max_threads`, `max_depth`, …: see CODEX_AGENTS_SETTINGS, measured with
 * `--strict-config`) or as a role. Roles are the compiler's (they come from the profile pack),
 * so only those settings are accepted, each with the type Codex expects.
 */
function checkAgentsTable(
  value: unknown,
  report: (code: string, path: KeyPath, message: string) => void,
): void {
  const settings = Object.keys(CODEX_AGENTS_SETTINGS).join(', ');
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    value instanceof Date
  ) {
    report(
      'codex-base-owned-key',
      ['agents'],
      `\`agents\` must be a table of Codex's multi-agent settings (${settings})`,
    );
    return;
  }
  for (const [rawKey, item] of Object.entries(value as Record<string, unknown>)) {
    const path: KeyPath = ['agents', rawKey];
    const expected = Object.hasOwn(CODEX_AGENTS_SETTINGS, rawKey)
      ? CODEX_AGENTS_SETTINGS[rawKey]
      : undefined;
    const key = safeKey(rawKey);
    if (expected === undefined) {
      const isRole = typeof item === 'object' && item !== null && !Array.isArray(item);
      report(
        'codex-base-owned-key',
        path,
        isRole
          ? `[agents.${key}] declares a role; roles are written by the compiler from the profile pack's [agents] tables. codex-base.toml may set only Codex's multi-agent settings under [agents]: ${settings}`
          : `\`agents.${key}\` is not one of Codex's multi-agent settings (${settings}); Codex would read it as a role and reject the configuration`,
      );
      continue;
    }
    const ok =
      expected === 'integer'
        ? (typeof item === 'number' && Number.isInteger(item) && item >= 0) ||
          typeof item === 'bigint'
        : typeof item === expected;
    if (!ok) {
      report(
        'codex-base-invalid-value',
        path,
        `\`agents.${key}\` must be ${expected === 'integer' ? 'a non-negative integer' : `a ${expected}`}`,
      );
    }
  }
}

/**
 * Settings that would undo the session boundary (docs/design.md §9): a shell environment inheriting
 * every variable or dropping Codex's KEY/SECRET/TOKEN excludes, and shell snapshots switched on.
 */
function checkBoundarySettings(
  key: string,
  value: unknown,
  report: (code: string, path: KeyPath, message: string) => void,
): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const table = value as Record<string, unknown>;
  if (key === 'shell_environment_policy') {
    if (table.inherit !== undefined && table.inherit !== 'core' && table.inherit !== 'none') {
      report(
        'codex-base-owned-key',
        [key, 'inherit'],
        'the model\'s shell starts from Codex\'s core variables (`inherit = "core"`) so no credential of the process reaches it; use `"core"` or `"none"`, and `set` for further literal variables',
      );
    }
    if (table.ignore_default_excludes === true) {
      report(
        'codex-base-owned-key',
        [key, 'ignore_default_excludes'],
        "Codex's KEY/SECRET/TOKEN excludes keep credentials out of the model's shell; remove `ignore_default_excludes`",
      );
    }
  }
  if (key === 'features' && table.shell_snapshot === true) {
    report(
      'codex-base-owned-key',
      [key, 'shell_snapshot'],
      "shell snapshots store the shell's environment in the Codex home and outlive the session; every session renders `shell_snapshot = false`, remove the key",
    );
  }
}

/** Keys whose string value names an environment variable rather than holding a secret. */
function isVariableReference(path: KeyPath): boolean {
  const key = path[path.length - 1];
  if (typeof key === 'string' && /(?:^|_)env_(?:var|key)$/.test(key)) return true;
  return path.slice(0, -1).some((segment) => segment === 'env_http_headers');
}

/** Validates parsed TOML of a codex-base file; `base` is `{}` when there are errors. */
export function validateCodexBase(source: FragmentSource): {
  base: TomlTable;
  diagnostics: Diagnostic[];
} {
  const parsed = parseTomlBytes(source.bytes, source.file);
  if (!parsed.ok) return { base: {}, diagnostics: [...parsed.diagnostics] };
  const diagnostics = checkBaseTable(parsed.value, source.file, parsed.positions);
  return { base: hasErrors(diagnostics) ? {} : parsed.value, diagnostics };
}

function checkBaseTable(table: TomlTable, file: string, positions: KeyPositions): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report = (code: string, path: KeyPath, message: string): void => {
    const at = positions.lookup(path);
    diagnostics.push(
      diagnostic({
        code,
        message,
        file,
        line: at?.line,
        column: at?.column,
        // a key pasted from a token is never shown
        path: formatKeyPath(path.map((s) => (typeof s === 'string' ? safeKey(s) : s))),
      }),
    );
  };
  const visit = (value: unknown, path: KeyPath): void => {
    if (value instanceof Date) {
      report(
        'codex-base-datetime',
        path,
        'date-time values are not Codex settings; write the value as a string or remove it',
      );
      return;
    }
    if (typeof value === 'string') {
      const key = path[path.length - 1];
      const byName = typeof key === 'string' && !isVariableReference(path) && isCredentialName(key);
      if (byName || isCredentialValue(value)) {
        report(
          'codex-base-credential',
          path,
          'this looks like a credential written as a literal; codex-base.toml is copied into every snapshot and rendered config, so it must not hold secrets — reference an environment variable instead (for a model provider: `env_key`)',
        );
      }
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item: unknown, index) => {
        visit(item, [...path, index]);
      });
      return;
    }
    if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (isCredentialValue(key)) {
          report(
            'codex-base-credential',
            [...path, key],
            'this key looks like a credential (a token or key); codex-base.toml is copied into every snapshot and rendered config, so it must not hold secrets — remove it',
          );
          continue;
        }
        visit(item, [...path, key]);
      }
    }
  };
  for (const [key, value] of Object.entries(table)) {
    if (key === 'agents') {
      checkAgentsTable(value, report);
      continue;
    }
    checkBoundarySettings(key, value, report);
    const instead = Object.hasOwn(COMPILER_OWNED_KEYS, key) ? COMPILER_OWNED_KEYS[key] : undefined;
    if (instead !== undefined) {
      report('codex-base-owned-key', [key], `\`${key}\` is written by the compiler: ${instead}`);
      continue;
    }
    visit({ [key]: value }, []);
  }
  return diagnostics;
}

/**
 * Reads `<configDir>/codex-base.toml`. A missing file is an empty base; an unreadable one is an
 * error diagnostic.
 */
export async function loadCodexBase(
  configDir: string,
): Promise<{ base: TomlTable; diagnostics: Diagnostic[]; file: string; exists: boolean }> {
  const file = configFiles(configDir).codexBase;
  const read = await readConfigFile(file);
  const fail = (
    message: string,
  ): {
    base: TomlTable;
    diagnostics: Diagnostic[];
    file: string;
    exists: boolean;
  } => ({
    base: {},
    diagnostics: [diagnostic({ code: 'codex-base-unreadable', message, file })],
    file,
    exists: true,
  });
  switch (read.kind) {
    case 'missing':
      return { base: {}, diagnostics: [], file, exists: false };
    case 'not-a-file':
      return fail(`codex-base.toml is ${read.what}; it must be a regular TOML file`);
    case 'too-large':
      return fail(
        `codex-base.toml is ${formatBytes(read.size)}; the limit is ${formatBytes(read.limit)}`,
      );
    case 'unreadable':
      return fail(`codex-base.toml cannot be read: ${read.reason}`);
    case 'ok': {
      const { base, diagnostics } = validateCodexBase({ file, bytes: read.bytes });
      return { base, diagnostics, file, exists: true };
    }
  }
}
