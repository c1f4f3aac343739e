/**
 * The grant validator of `profile.toml`: a role's `[agents.ROLE.tool_mcp_servers.ID]` tables,
 * checked on their own (server IDs, grant keys, `required`, `enabled_tools`). Whether a granted
 * server and its tools exist is the registry check's part.
 */
import { RESERVED_SERVER_ID, SERVER_ID_PATTERN } from '../registry/types.js';
import type { KeyPath } from '../../foundation/toml/key-positions.js';
import { describe, isTable, type PackCheck, type Table } from './pack-check.js';
import { GRANT_KEY_ADVICE, GRANT_KEYS, SERVER_DEFINITION_KEYS } from './pack-fields.js';
import type { GrantSpec } from './types.js';

/** The usable grants of one role; every problem is reported to `check`. */
export function validateGrants(
  check: PackCheck,
  roleName: string,
  value: unknown,
  path: KeyPath,
): Record<string, GrantSpec> {
  const grants: Record<string, GrantSpec> = {};
  if (value === undefined) return grants;
  if (!isTable(value)) {
    check.report(
      'invalid-type',
      path,
      `\`tool_mcp_servers\` must be a table of grants ([agents.${roleName}.tool_mcp_servers.ID]), not ${describe(value)}`,
    );
    return grants;
  }
  for (const [server, grantValue] of Object.entries(value)) {
    const grantPath = [...path, server];
    let usable = true;
    if (server === RESERVED_SERVER_ID) {
      check.report(
        'reserved-server-grant',
        grantPath,
        `\`${RESERVED_SERVER_ID}\` is the runtime-owned Agent MCP server and cannot be granted; list participant roles in \`spawn\`/\`control\` instead`,
      );
      usable = false;
    } else if (!SERVER_ID_PATTERN.test(server)) {
      check.report(
        'invalid-server-id',
        grantPath,
        `${JSON.stringify(server)} is not a valid server ID (lowercase letters, digits, '_' or '-', starting with a letter); grant a server ID from the operator registry`,
      );
      usable = false;
    }
    if (!isTable(grantValue)) {
      check.report(
        'invalid-type',
        grantPath,
        `a grant must be a table ([agents.${roleName}.tool_mcp_servers.${server}] with optional \`required\` and \`enabled_tools\`), not ${describe(grantValue)}`,
      );
      continue;
    }
    const grant = validateGrant(check, server, grantValue, grantPath);
    if (usable) grants[server] = grant;
  }
  return grants;
}

/** A grant, also when it has errors (then it only serves the partial profile). */
function validateGrant(check: PackCheck, server: string, table: Table, path: KeyPath): GrantSpec {
  let ok = true;
  for (const key of Object.keys(table)) {
    if ((GRANT_KEYS as readonly string[]).includes(key)) continue;
    ok = false;
    if (SERVER_DEFINITION_KEYS.has(key)) {
      check.report(
        'server-field-in-grant',
        [...path, key],
        `a grant cannot set \`${key}\`: the operator registry owns server \`${server}\`'s definition (command, URL, credentials, headers, timeouts, approval policy, parallel calls). Change it in tool-mcp.d/*.toml; a grant may only set \`required\` and \`enabled_tools\``,
      );
      continue;
    }
    const advice = GRANT_KEY_ADVICE[key];
    if (advice !== undefined) {
      check.report('unknown-key', [...path, key], `unknown grant key \`${key}\`: ${advice}`);
      continue;
    }
    check.unknownKey([...path, key], key, GRANT_KEYS, `the grant of \`${server}\``);
  }
  let required = true;
  if (table.required !== undefined) {
    if (typeof table.required === 'boolean') required = table.required;
    else {
      ok = false;
      check.report(
        'invalid-type',
        [...path, 'required'],
        `required must be true or false, not ${describe(table.required)}`,
      );
    }
  }
  let enabledTools: string[] | undefined;
  const tools = table.enabled_tools;
  if (tools !== undefined) {
    const toolsPath = [...path, 'enabled_tools'];
    if (!Array.isArray(tools)) {
      ok = false;
      check.report(
        'invalid-type',
        toolsPath,
        `enabled_tools must be an array of tool names, not ${describe(tools)}`,
      );
    } else if (tools.length === 0) {
      ok = false;
      check.report(
        'empty-enabled-tools',
        toolsPath,
        `enabled_tools is empty; list at least one tool, omit enabled_tools to grant the operator's whole list, or remove the grant to give the role no access to \`${server}\``,
      );
    } else {
      enabledTools = [];
      tools.forEach((tool: unknown, index) => {
        const toolPath = [...toolsPath, index];
        if (typeof tool !== 'string' || tool === '') {
          ok = false;
          check.report(
            'invalid-type',
            toolPath,
            `enabled_tools entries must be non-empty tool names, not ${typeof tool === 'string' ? 'an empty string' : describe(tool)}`,
          );
          return;
        }
        if (enabledTools?.includes(tool)) {
          ok = false;
          check.report(
            'duplicate-tool',
            toolPath,
            `tool \`${tool}\` is listed twice in enabled_tools; list it once`,
          );
          return;
        }
        enabledTools?.push(tool);
      });
    }
  }
  if (ok) {
    return {
      server,
      required,
      ...(enabledTools !== undefined ? { enabled_tools: enabledTools } : {}),
    };
  }
  // Not part of a valid profile, but kept for the partial one so the registry check can add
  // what only it knows (the operator's list, unknown servers). Its tools are kept only when
  // their indexes still match the file (no entry dropped), so positions stay right.
  const keepTools =
    Array.isArray(tools) && (tools.length === 0 || enabledTools?.length === tools.length);
  return {
    server,
    required,
    ...(keepTools ? { enabled_tools: enabledTools ?? [] } : {}),
  };
}
