/**
 * The role validator of `profile.toml`: one `[agents.ROLE]` table, its keys, description,
 * instructions, model, sandbox settings, role references (`native_agents`, `spawn`, `control`)
 * and grants.
 */
import type { KeyPath } from '../../foundation/toml/key-positions.js';
import { describe, type PackCheck, type RoleReferenceCheck, type Table } from './pack-check.js';
import { ROLE_KEYS, ROLE_REFERENCE_KEYS, SERVER_DEFINITION_KEYS } from './pack-fields.js';
import { validateInstructions, type InstructionFileRef } from './role-instructions.js';
import { validateSandbox } from './role-sandbox.js';
import type { RoleSpec } from './types.js';
import { validateGrants } from './validate-grants.js';

export interface RoleContext {
  readonly check: PackCheck;
  /** Reports a reference to a role the pack does not define. */
  readonly checkRoleReference: RoleReferenceCheck;
  /** Collects the instruction files of valid references, in document order. */
  readonly instructionFiles: InstructionFileRef[];
}

/** Validates one role table; the spec it returns keeps what is valid of it. */
export function validateRole(
  context: RoleContext,
  roleName: string,
  table: Table,
  rolePath: KeyPath,
): RoleSpec {
  const { check } = context;
  for (const key of Object.keys(table)) {
    if ((ROLE_KEYS as readonly string[]).includes(key)) continue;
    if (key === 'mcp_servers') {
      check.report(
        'unknown-key',
        [...rolePath, key],
        `unknown key \`mcp_servers\` in role \`${roleName}\`; grant registered servers under [agents.${roleName}.tool_mcp_servers.ID]`,
      );
      continue;
    }
    if (SERVER_DEFINITION_KEYS.has(key) && key !== 'name') {
      check.report(
        'server-field-in-pack',
        [...rolePath, key],
        `\`${key}\` is part of a server definition, which the operator registry owns (tool-mcp.d/*.toml); a role can only be granted registered servers under [agents.${roleName}.tool_mcp_servers.ID]`,
      );
      continue;
    }
    check.unknownKey([...rolePath, key], key, ROLE_KEYS, `role \`${roleName}\``);
  }

  const roleDescription = check.requireString(table, 'description', rolePath, '`description`');
  if (table.description === undefined) {
    check.report(
      'missing-field',
      [...rolePath, 'description'],
      `role \`${roleName}\` needs a \`description\`: Codex shows it when choosing a role`,
    );
  } else if (roleDescription?.trim() === '') {
    check.report('invalid-value', [...rolePath, 'description'], 'description must not be empty');
  }

  const { inline, instructionsFile } = validateInstructions(
    check,
    roleName,
    table,
    rolePath,
    context.instructionFiles,
  );

  const model = check.requireString(table, 'model', rolePath, '`model`');
  if (model?.trim() === '') {
    check.report(
      'invalid-value',
      [...rolePath, 'model'],
      'model must not be empty; omit it to use the default model',
    );
  }

  const { permissions, networkAccess } = validateSandbox(check, roleName, table, rolePath);

  const refs: Record<(typeof ROLE_REFERENCE_KEYS)[number], string[]> = {
    native_agents: [],
    spawn: [],
    control: [],
  };
  for (const key of ROLE_REFERENCE_KEYS) {
    refs[key] = roleList(context, table[key], [...rolePath, key], key);
  }

  if (refs.spawn.includes(roleName)) {
    check.report(
      'self-spawn',
      [...rolePath, 'spawn'],
      `role \`${roleName}\` lists itself in \`spawn\`: each of its participants may start another, one after the other, until the session's participant limit (--max-participants, default 8) refuses; remove \`${roleName}\` from its own spawn list unless that chain is intended`,
      'warning',
    );
  }
  if (permissions === 'full-access') {
    check.report(
      'sandbox-reads-unrestricted',
      [...rolePath, 'permissions'],
      `role \`${roleName}\` runs with permissions = "full-access": Codex cannot deny reads without a sandbox, so its shell commands can read every file the user can (credentials.env, the base Codex home's auth.json, other processes' homes and rollouts) and /proc/<pid>/environ of every process of the user, Tool MCP credentials of Codex processes included. Use "workspace-write" or "read-only" to keep those files unreadable`,
      'warning',
    );
  }

  const grants = validateGrants(check, roleName, table.tool_mcp_servers, [
    ...rolePath,
    'tool_mcp_servers',
  ]);

  const spec: RoleSpec = {
    name: roleName,
    description: roleDescription ?? '',
    instructions: inline ?? '',
    ...(instructionsFile !== undefined ? { instructions_file: instructionsFile } : {}),
    ...(model !== undefined ? { model } : {}),
    permissions,
    network_access: networkAccess,
    native_agents: refs.native_agents,
    spawn: refs.spawn,
    control: refs.control,
    grants,
  };
  return spec;
}

function roleList(context: RoleContext, value: unknown, path: KeyPath, key: string): string[] {
  const { check } = context;
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    check.report(
      'invalid-type',
      path,
      `\`${key}\` must be an array of role names, not ${describe(value)}`,
    );
    return [];
  }
  const out: string[] = [];
  value.forEach((item: unknown, index) => {
    const itemPath = [...path, index];
    if (typeof item !== 'string') {
      check.report(
        'invalid-type',
        itemPath,
        `\`${key}\` entries must be role names (strings), not ${describe(item)}`,
      );
      return;
    }
    if (out.includes(item)) {
      check.report(
        'duplicate-role-reference',
        itemPath,
        `role \`${item}\` is listed twice in \`${key}\`; list it once`,
      );
      return;
    }
    out.push(item);
    context.checkRoleReference(item, itemPath, `\`${key}\``);
  });
  return out;
}
