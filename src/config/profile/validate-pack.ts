/**
 * Strict validation of a pack's `profile.toml` (docs/design.md §4): pure, bytes in, profile data
 * and positioned diagnostics out. Instruction files are only checked as paths here; `loadPack`
 * reads them and fills in their text.
 */
import { isAbsolute, normalize } from 'node:path/posix';

import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import { RESERVED_SERVER_ID, SERVER_ID_PATTERN, type FragmentSource } from '../registry/types.js';
import {
  formatKeyPath,
  type KeyPath,
  type KeyPositions,
} from '../../foundation/toml/key-positions.js';
import { parseTomlBytes } from '../../foundation/toml/parse-toml.js';
import {
  CODEX_AGENTS_SETTINGS,
  GRANT_KEY_ADVICE,
  GRANT_KEYS,
  PACK_NAME_PATTERN,
  ROLE_KEYS,
  ROLE_NAME_PATTERN,
  ROLE_REFERENCE_KEYS,
  SERVER_DEFINITION_KEYS,
  TOP_LEVEL_KEYS,
} from './pack-fields.js';
import {
  PERMISSIONS,
  PROFILE_SCHEMA_VERSION,
  type GrantSpec,
  type Permissions,
  type ProfileData,
  type RoleSpec,
} from './types.js';

/** A role's reference to an instruction file, still to be read and checked on disk. */
export interface InstructionFileRef {
  readonly role: string;
  /** Normalised pack-relative path. */
  readonly file: string;
  /** Position of the `instructions_file` key. */
  readonly line?: number;
  readonly column?: number;
}

export interface PackValidation {
  /**
   * The profile when the document has no errors. Roles with `instructions_file` carry an empty
   * `instructions` string until the file is read.
   */
  readonly profile: ProfileData | undefined;
  /**
   * When the document has errors but parses: every role table with the grants that are valid on
   * their own, so that the grants can still be checked against the registry and every problem
   * is reported at once. Not a usable profile.
   */
  readonly partial?: ProfileData;
  readonly positions?: KeyPositions;
  readonly instructionFiles: readonly InstructionFileRef[];
  readonly diagnostics: readonly Diagnostic[];
}

type Table = Record<string, unknown>;

/** `; did you mean `X`?` or `.`, to end a sentence about an unknown name. */
function didYouMean(word: string, candidates: readonly string[]): string {
  const guess = suggest(word, candidates);
  return guess !== undefined ? `; did you mean \`${guess}\`?` : '.';
}

function isTable(value: unknown): value is Table {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return 'a boolean';
  if (typeof value === 'number' || typeof value === 'bigint') return 'a number';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  if (isTable(value)) return 'a table';
  return 'an unsupported value';
}

/** Validates one `profile.toml`. `file` in the source is used for diagnostics only. */
export function validatePackToml(source: FragmentSource): PackValidation {
  const parsed = parseTomlBytes(source.bytes, source.file);
  if (!parsed.ok) {
    return { profile: undefined, instructionFiles: [], diagnostics: parsed.diagnostics };
  }
  const { value: doc, positions } = parsed;
  const diagnostics: Diagnostic[] = [];
  const file = source.file;

  const report = (
    code: string,
    path: KeyPath,
    message: string,
    severity: 'error' | 'warning' = 'error',
  ): void => {
    // a key that is missing has no position: point at its table, or the start of the file
    const at = positions.lookup(path) ?? { line: 1, column: 1 };
    diagnostics.push(
      diagnostic({
        severity,
        code,
        message,
        file,
        line: at.line,
        column: at.column,
        path: formatKeyPath(path),
      }),
    );
  };

  const unknownKey = (
    path: KeyPath,
    key: string,
    known: readonly string[],
    where: string,
  ): void => {
    report(
      'unknown-key',
      path,
      `unknown key \`${key}\` in ${where}${didYouMean(key, known)} Known keys: ${known.join(', ')}`,
    );
  };

  const requireString = (
    table: Table,
    key: string,
    path: KeyPath,
    what: string,
  ): string | undefined => {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      report('invalid-type', [...path, key], `${what} must be a string, not ${describe(value)}`);
      return undefined;
    }
    return value;
  };

  // --- top level ---
  for (const key of Object.keys(doc)) {
    if ((TOP_LEVEL_KEYS as readonly string[]).includes(key)) continue;
    if (key === 'tool_mcp_servers' || key === 'mcp_servers') {
      report(
        'pack-defines-servers',
        [key],
        `a profile pack cannot define Tool MCP servers; the operator registry owns server definitions (tool-mcp.d/*.toml in the config directory). Grant a registered server to a role instead: [agents.ROLE.tool_mcp_servers.ID]`,
      );
      continue;
    }
    if (SERVER_DEFINITION_KEYS.has(key)) {
      report(
        'server-field-in-pack',
        [key],
        `\`${key}\` is part of a server definition, which the operator registry owns (tool-mcp.d/*.toml); a pack holds roles and grants only`,
      );
      continue;
    }
    unknownKey([key], key, TOP_LEVEL_KEYS, 'the top level of profile.toml');
  }

  const version = doc.schema_version;
  if (version === undefined) {
    report(
      'missing-field',
      ['schema_version'],
      `\`schema_version\` is required; add \`schema_version = ${PROFILE_SCHEMA_VERSION}\` at the top of profile.toml`,
    );
  } else if (version !== PROFILE_SCHEMA_VERSION) {
    report(
      'schema-version-unsupported',
      ['schema_version'],
      `schema_version ${typeof version === 'number' ? String(version) : `is ${describe(version)}`}: this version of codex-mmo reads schema_version = ${PROFILE_SCHEMA_VERSION}; update the pack to that format`,
    );
  }

  const name = requireString(doc, 'name', [], '`name`');
  if (doc.name === undefined) {
    report('missing-field', ['name'], '`name` is required: the name the pack is installed under');
  } else if (name !== undefined && !PACK_NAME_PATTERN.test(name)) {
    report(
      'invalid-name',
      ['name'],
      `pack name ${JSON.stringify(name)} is invalid: use 1–64 characters, lowercase letters, digits, '_' or '-', starting with a letter`,
    );
  }

  const description = requireString(doc, 'description', [], '`description`');

  const root = requireString(doc, 'root', [], '`root`');
  if (doc.root === undefined) {
    report('missing-field', ['root'], '`root` is required: the role a session starts as');
  }

  const agentsValue = doc.agents;
  const agents: Table = isTable(agentsValue) ? agentsValue : {};
  if (agentsValue === undefined) {
    report(
      'missing-field',
      ['agents'],
      'the pack defines no roles; add at least one [agents.ROLE] table',
    );
  } else if (!isTable(agentsValue)) {
    report(
      'invalid-type',
      ['agents'],
      `\`agents\` must be a table of roles ([agents.ROLE]), not ${describe(agentsValue)}`,
    );
  } else if (Object.keys(agentsValue).length === 0) {
    report(
      'missing-field',
      ['agents'],
      'the pack defines no roles; add at least one [agents.ROLE] table',
    );
  }

  const roleNames = Object.keys(agents);
  const roleSet = new Set(roleNames);
  const checkRoleReference = (target: string, path: KeyPath, what: string): void => {
    if (roleSet.has(target)) return;
    report(
      'unknown-role',
      path,
      `${what} names role \`${target}\`, which the pack does not define${didYouMean(target, roleNames)} Defined roles: ${roleNames.length > 0 ? roleNames.join(', ') : '(none)'}`,
    );
  };

  if (root !== undefined) checkRoleReference(root, ['root'], '`root`');

  const roles: Record<string, RoleSpec> = {};
  const instructionFiles: InstructionFileRef[] = [];

  for (const roleName of roleNames) {
    const rolePath: KeyPath = ['agents', roleName];
    const value = agents[roleName];
    if (!ROLE_NAME_PATTERN.test(roleName)) {
      report(
        'invalid-role-name',
        rolePath,
        `role name ${JSON.stringify(roleName)} is invalid: use 1–64 characters, lowercase letters, digits, '_' or '-', starting with a letter`,
      );
    } else if (Object.hasOwn(CODEX_AGENTS_SETTINGS, roleName)) {
      report(
        'reserved-role-name',
        rolePath,
        `role name \`${roleName}\` is one of Codex's own [agents] settings (${Object.keys(CODEX_AGENTS_SETTINGS).join(', ')}); Codex would read [agents.${roleName}] as that setting and reject the whole configuration. Rename the role`,
      );
    }
    if (!isTable(value)) {
      report(
        'invalid-type',
        rolePath,
        `role \`${roleName}\` must be a table ([agents.${roleName}]), not ${describe(value)}`,
      );
      continue;
    }
    const role = validateRole(roleName, value, rolePath);
    if (role) roles[roleName] = role;
  }

  function validateRole(roleName: string, table: Table, rolePath: KeyPath): RoleSpec | undefined {
    for (const key of Object.keys(table)) {
      if ((ROLE_KEYS as readonly string[]).includes(key)) continue;
      if (key === 'mcp_servers') {
        report(
          'unknown-key',
          [...rolePath, key],
          `unknown key \`mcp_servers\` in role \`${roleName}\`; grant registered servers under [agents.${roleName}.tool_mcp_servers.ID]`,
        );
        continue;
      }
      if (SERVER_DEFINITION_KEYS.has(key) && key !== 'name') {
        report(
          'server-field-in-pack',
          [...rolePath, key],
          `\`${key}\` is part of a server definition, which the operator registry owns (tool-mcp.d/*.toml); a role can only be granted registered servers under [agents.${roleName}.tool_mcp_servers.ID]`,
        );
        continue;
      }
      unknownKey([...rolePath, key], key, ROLE_KEYS, `role \`${roleName}\``);
    }

    const roleDescription = requireString(table, 'description', rolePath, '`description`');
    if (table.description === undefined) {
      report(
        'missing-field',
        [...rolePath, 'description'],
        `role \`${roleName}\` needs a \`description\`: Codex shows it when choosing a role`,
      );
    } else if (roleDescription?.trim() === '') {
      report('invalid-value', [...rolePath, 'description'], 'description must not be empty');
    }

    const inline = requireString(table, 'instructions', rolePath, '`instructions`');
    const fileRef = requireString(table, 'instructions_file', rolePath, '`instructions_file`');
    let instructionsFile: string | undefined;
    if (table.instructions !== undefined && table.instructions_file !== undefined) {
      report(
        'instructions-conflict',
        [...rolePath, 'instructions_file'],
        `role \`${roleName}\` sets both \`instructions\` and \`instructions_file\`; keep one`,
      );
    } else if (table.instructions === undefined && table.instructions_file === undefined) {
      report(
        'missing-instructions',
        [...rolePath, 'instructions'],
        `role \`${roleName}\` needs instructions: set \`instructions = "..."\` or \`instructions_file = "FILE.md"\` (a file inside the pack)`,
      );
    } else if (inline !== undefined && inline.trim() === '') {
      report('invalid-value', [...rolePath, 'instructions'], 'instructions must not be empty');
    } else if (fileRef !== undefined) {
      const normalized = checkInstructionPath(fileRef, [...rolePath, 'instructions_file']);
      if (normalized !== undefined) {
        instructionsFile = normalized;
        const at = positions.lookup([...rolePath, 'instructions_file']);
        instructionFiles.push({
          role: roleName,
          file: normalized,
          ...(at ? { line: at.line, column: at.column } : {}),
        });
      }
    }

    const model = requireString(table, 'model', rolePath, '`model`');
    if (model?.trim() === '') {
      report(
        'invalid-value',
        [...rolePath, 'model'],
        'model must not be empty; omit it to use the default model',
      );
    }

    let permissions: Permissions = 'read-only';
    const permissionsValue = requireString(table, 'permissions', rolePath, '`permissions`');
    if (permissionsValue !== undefined) {
      if ((PERMISSIONS as readonly string[]).includes(permissionsValue)) {
        permissions = permissionsValue as Permissions;
      } else {
        const guess = suggest(permissionsValue, PERMISSIONS);
        report(
          'invalid-value',
          [...rolePath, 'permissions'],
          `permissions ${JSON.stringify(permissionsValue)} is not one of ${PERMISSIONS.join(', ')}${guess !== undefined ? `; did you mean \`${guess}\`?` : ''}`,
        );
      }
    }

    let networkAccess = false;
    const network = table.network_access;
    if (network !== undefined) {
      if (typeof network === 'boolean') networkAccess = network;
      else
        report(
          'invalid-type',
          [...rolePath, 'network_access'],
          `network_access must be true or false, not ${describe(network)}`,
        );
    }
    // Codex 0.149's config.toml has a shell-network switch only for the workspace-write sandbox
    // (`sandbox_workspace_write.network_access`): the read-only sandbox never has network and
    // full access never restricts it. The setting stays in the profile (and the snapshot) but
    // cannot be rendered for those two, so validation says so instead of dropping it silently.
    if (network === true && permissions === 'read-only') {
      report(
        'network-access-ignored',
        [...rolePath, 'network_access'],
        `network_access = true has no effect for role \`${roleName}\`: with permissions = "read-only" Codex's sandbox keeps shell commands off the network, and Codex's configuration has a network switch only for the workspace-write sandbox. Use permissions = "workspace-write" to give shell commands network access, or remove network_access`,
        'warning',
      );
    } else if (network === false && permissions === 'full-access') {
      report(
        'network-access-ignored',
        [...rolePath, 'network_access'],
        `network_access = false has no effect for role \`${roleName}\`: with permissions = "full-access" Codex runs shell commands without a sandbox, so they keep network access. Use permissions = "workspace-write" to switch shell networking off, or remove network_access`,
        'warning',
      );
    }

    const refs: Record<(typeof ROLE_REFERENCE_KEYS)[number], string[]> = {
      native_agents: [],
      spawn: [],
      control: [],
    };
    for (const key of ROLE_REFERENCE_KEYS) {
      refs[key] = roleList(table[key], [...rolePath, key], key);
    }

    if (refs.spawn.includes(roleName)) {
      report(
        'self-spawn',
        [...rolePath, 'spawn'],
        `role \`${roleName}\` lists itself in \`spawn\`: each of its participants may start another, one after the other, until the session's participant limit (--max-participants, default 8) refuses; remove \`${roleName}\` from its own spawn list unless that chain is intended`,
        'warning',
      );
    }
    if (permissions === 'full-access') {
      report(
        'sandbox-reads-unrestricted',
        [...rolePath, 'permissions'],
        `role \`${roleName}\` runs with permissions = "full-access": Codex cannot deny reads without a sandbox, so its shell commands can read every file the user can (credentials.env, the base Codex home's auth.json, other processes' homes and rollouts) and /proc/<pid>/environ of every process of the user, Tool MCP credentials of Codex processes included. Use "workspace-write" or "read-only" to keep those files unreadable`,
        'warning',
      );
    }

    const grants = validateGrants(roleName, table.tool_mcp_servers, [
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

  function roleList(value: unknown, path: KeyPath, key: string): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      report(
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
        report(
          'invalid-type',
          itemPath,
          `\`${key}\` entries must be role names (strings), not ${describe(item)}`,
        );
        return;
      }
      if (out.includes(item)) {
        report(
          'duplicate-role-reference',
          itemPath,
          `role \`${item}\` is listed twice in \`${key}\`; list it once`,
        );
        return;
      }
      out.push(item);
      checkRoleReference(item, itemPath, `\`${key}\``);
    });
    return out;
  }

  function checkInstructionPath(ref: string, path: KeyPath): string | undefined {
    if (ref.trim() === '') {
      report('invalid-value', path, 'instructions_file must not be empty');
      return undefined;
    }
    if (ref.includes('\u0000') || ref.includes('\\')) {
      report(
        'instructions-file-outside-pack',
        path,
        `instructions_file ${JSON.stringify(ref)} is not a plain relative path; use '/'-separated names inside the pack directory`,
      );
      return undefined;
    }
    if (isAbsolute(ref) || ref.startsWith('~')) {
      report(
        'instructions-file-outside-pack',
        path,
        `instructions_file ${JSON.stringify(ref)} is absolute; a pack is self-contained: put the file in the pack directory and give its relative path`,
      );
      return undefined;
    }
    const normalized = normalize(ref);
    if (normalized === '..' || normalized.startsWith('../../') || normalized === '.') {
      report(
        'instructions-file-outside-pack',
        path,
        `instructions_file ${JSON.stringify(ref)} leaves the pack directory; a pack is self-contained: put the file in the pack directory and give its relative path`,
      );
      return undefined;
    }
    return normalized;
  }

  function validateGrants(
    roleName: string,
    value: unknown,
    path: KeyPath,
  ): Record<string, GrantSpec> {
    const grants: Record<string, GrantSpec> = {};
    if (value === undefined) return grants;
    if (!isTable(value)) {
      report(
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
        report(
          'reserved-server-grant',
          grantPath,
          `\`${RESERVED_SERVER_ID}\` is the runtime-owned Agent MCP server and cannot be granted; list participant roles in \`spawn\`/\`control\` instead`,
        );
        usable = false;
      } else if (!SERVER_ID_PATTERN.test(server)) {
        report(
          'invalid-server-id',
          grantPath,
          `${JSON.stringify(server)} is not a valid server ID (lowercase letters, digits, '_' or '-', starting with a letter); grant a server ID from the operator registry`,
        );
        usable = false;
      }
      if (!isTable(grantValue)) {
        report(
          'invalid-type',
          grantPath,
          `a grant must be a table ([agents.${roleName}.tool_mcp_servers.${server}] with optional \`required\` and \`enabled_tools\`), not ${describe(grantValue)}`,
        );
        continue;
      }
      const grant = validateGrant(server, grantValue, grantPath);
      if (usable) grants[server] = grant;
    }
    return grants;
  }

  /** A grant, also when it has errors (then it only serves the partial profile). */
  function validateGrant(server: string, table: Table, path: KeyPath): GrantSpec {
    let ok = true;
    for (const key of Object.keys(table)) {
      if ((GRANT_KEYS as readonly string[]).includes(key)) continue;
      ok = false;
      if (SERVER_DEFINITION_KEYS.has(key)) {
        report(
          'server-field-in-grant',
          [...path, key],
          `a grant cannot set \`${key}\`: the operator registry owns server \`${server}\`'s definition (command, URL, credentials, headers, timeouts, approval policy, parallel calls). Change it in tool-mcp.d/*.toml; a grant may only set \`required\` and \`enabled_tools\``,
        );
        continue;
      }
      const advice = GRANT_KEY_ADVICE[key];
      if (advice !== undefined) {
        report('unknown-key', [...path, key], `unknown grant key \`${key}\`: ${advice}`);
        continue;
      }
      unknownKey([...path, key], key, GRANT_KEYS, `the grant of \`${server}\``);
    }
    let required = true;
    if (table.required !== undefined) {
      if (typeof table.required === 'boolean') required = table.required;
      else {
        ok = false;
        report(
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
        report(
          'invalid-type',
          toolsPath,
          `enabled_tools must be an array of tool names, not ${describe(tools)}`,
        );
      } else if (tools.length === 0) {
        ok = false;
        report(
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
            report(
              'invalid-type',
              toolPath,
              `enabled_tools entries must be non-empty tool names, not ${typeof tool === 'string' ? 'an empty string' : describe(tool)}`,
            );
            return;
          }
          if (enabledTools?.includes(tool)) {
            ok = false;
            report(
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

  if (hasErrors(diagnostics) || name === undefined || root === undefined) {
    const partial: ProfileData = {
      schema_version: PROFILE_SCHEMA_VERSION,
      name: name ?? '',
      root: root ?? '',
      agents: roles,
    };
    return { profile: undefined, partial, positions, instructionFiles, diagnostics };
  }
  const profile: ProfileData = {
    schema_version: PROFILE_SCHEMA_VERSION,
    name,
    ...(description !== undefined ? { description } : {}),
    root,
    agents: roles,
  };
  return { profile, positions, instructionFiles, diagnostics };
}
