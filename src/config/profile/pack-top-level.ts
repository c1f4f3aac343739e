/**
 * The top level of `profile.toml`: which keys a pack may hold (no server definitions), its
 * `schema_version`, `name`, `description`, `root`, the `[agents]` table of roles and `[budget]`.
 */
import { describe, isTable, type PackCheck, type Table } from './pack-check.js';
import { PACK_NAME_PATTERN, SERVER_DEFINITION_KEYS, TOP_LEVEL_KEYS } from './pack-fields.js';
import { validatePackBudget } from './pack-budget.js';
import { PROFILE_SCHEMA_VERSION, type PackBudget } from './types.js';

export interface PackTopLevel {
  readonly name: string | undefined;
  readonly description: string | undefined;
  readonly root: string | undefined;
  /** The role tables by name; empty when `agents` is missing or not a table. */
  readonly agents: Table;
  readonly budget: PackBudget | undefined;
}

/** Checks the document's top-level keys and values, in document order of the checks. */
export function validateTopLevel(check: PackCheck, doc: Table): PackTopLevel {
  // --- top level ---
  for (const key of Object.keys(doc)) {
    if ((TOP_LEVEL_KEYS as readonly string[]).includes(key)) continue;
    if (key === 'tool_mcp_servers' || key === 'mcp_servers') {
      check.report(
        'pack-defines-servers',
        [key],
        `a profile pack cannot define Tool MCP servers; the operator registry owns server definitions (tool-mcp.d/*.toml in the config directory). Grant a registered server to a role instead: [agents.ROLE.tool_mcp_servers.ID]`,
      );
      continue;
    }
    if (SERVER_DEFINITION_KEYS.has(key)) {
      check.report(
        'server-field-in-pack',
        [key],
        `\`${key}\` is part of a server definition, which the operator registry owns (tool-mcp.d/*.toml); a pack holds roles and grants only`,
      );
      continue;
    }
    check.unknownKey([key], key, TOP_LEVEL_KEYS, 'the top level of profile.toml');
  }

  const version = doc.schema_version;
  if (version === undefined) {
    check.report(
      'missing-field',
      ['schema_version'],
      `\`schema_version\` is required; add \`schema_version = ${PROFILE_SCHEMA_VERSION}\` at the top of profile.toml`,
    );
  } else if (version !== PROFILE_SCHEMA_VERSION) {
    check.report(
      'schema-version-unsupported',
      ['schema_version'],
      `schema_version ${typeof version === 'number' ? String(version) : `is ${describe(version)}`}: this version of codex-mmo reads schema_version = ${PROFILE_SCHEMA_VERSION}; update the pack to that format`,
    );
  }

  const name = check.requireString(doc, 'name', [], '`name`');
  if (doc.name === undefined) {
    check.report(
      'missing-field',
      ['name'],
      '`name` is required: the name the pack is installed under',
    );
  } else if (name !== undefined && !PACK_NAME_PATTERN.test(name)) {
    check.report(
      'invalid-name',
      ['name'],
      `pack name ${JSON.stringify(name)} is invalid: use 1–64 characters, lowercase letters, digits, '_' or '-', starting with a letter`,
    );
  }

  const description = check.requireString(doc, 'description', [], '`description`');

  const root = check.requireString(doc, 'root', [], '`root`');
  if (doc.root === undefined) {
    check.report('missing-field', ['root'], '`root` is required: the role a session starts as');
  }

  const agentsValue = doc.agents;
  const agents: Table = isTable(agentsValue) ? agentsValue : {};
  if (agentsValue === undefined) {
    check.report(
      'missing-field',
      ['agents'],
      'the pack defines no roles; add at least one [agents.ROLE] table',
    );
  } else if (!isTable(agentsValue)) {
    check.report(
      'invalid-type',
      ['agents'],
      `\`agents\` must be a table of roles ([agents.ROLE]), not ${describe(agentsValue)}`,
    );
  } else if (Object.keys(agentsValue).length === 0) {
    check.report(
      'missing-field',
      ['agents'],
      'the pack defines no roles; add at least one [agents.ROLE] table',
    );
  }

  const budget = validatePackBudget(check, doc.budget);
  return { name, description, root, agents, budget };
}
