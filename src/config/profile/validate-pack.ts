/**
 * Strict validation of a pack's `profile.toml` (docs/design.md §4): pure, bytes in, profile data
 * and positioned diagnostics out. Instruction files are only checked as paths here; `loadPack`
 * reads them and fills in their text.
 */
import { hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { FragmentSource } from '../registry/types.js';
import type { KeyPath, KeyPositions } from '../../foundation/toml/key-positions.js';
import { parseTomlBytes } from '../../foundation/toml/parse-toml.js';
import {
  createPackCheck,
  describe,
  didYouMean,
  isTable,
  type PackCheck,
  type Table,
} from './pack-check.js';
import { CODEX_AGENTS_SETTINGS, ROLE_NAME_PATTERN } from './pack-fields.js';
import { validateTopLevel } from './pack-top-level.js';
import type { InstructionFileRef } from './role-instructions.js';
import { PROFILE_SCHEMA_VERSION, type ProfileData, type RoleSpec } from './types.js';
import { validateRole, type RoleContext } from './validate-role.js';

export type { InstructionFileRef } from './role-instructions.js';

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

/** Validates one `profile.toml`. `file` in the source is used for diagnostics only. */
export function validatePackToml(source: FragmentSource): PackValidation {
  const parsed = parseTomlBytes(source.bytes, source.file);
  if (!parsed.ok) {
    return { profile: undefined, instructionFiles: [], diagnostics: parsed.diagnostics };
  }
  const { value: doc, positions } = parsed;
  const check = createPackCheck(source.file, positions);
  const { diagnostics } = check;
  const { name, description, root, agents, budget } = validateTopLevel(check, doc);
  const { roles, instructionFiles } = validateRoles(check, agents, root);

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
    ...(budget !== undefined ? { budget } : {}),
  };
  return { profile, positions, instructionFiles, diagnostics };
}

/** The `root` reference, then every role table in document order. */
function validateRoles(
  check: PackCheck,
  agents: Table,
  root: string | undefined,
): { roles: Record<string, RoleSpec>; instructionFiles: InstructionFileRef[] } {
  const roleNames = Object.keys(agents);
  const roleSet = new Set(roleNames);
  const checkRoleReference = (target: string, path: KeyPath, what: string): void => {
    if (roleSet.has(target)) return;
    check.report(
      'unknown-role',
      path,
      `${what} names role \`${target}\`, which the pack does not define${didYouMean(target, roleNames)} Defined roles: ${roleNames.length > 0 ? roleNames.join(', ') : '(none)'}`,
    );
  };

  if (root !== undefined) checkRoleReference(root, ['root'], '`root`');

  const roles: Record<string, RoleSpec> = {};
  const instructionFiles: InstructionFileRef[] = [];
  const context: RoleContext = { check, checkRoleReference, instructionFiles };

  for (const roleName of roleNames) {
    const rolePath: KeyPath = ['agents', roleName];
    const value = agents[roleName];
    if (!ROLE_NAME_PATTERN.test(roleName)) {
      check.report(
        'invalid-role-name',
        rolePath,
        `role name ${JSON.stringify(roleName)} is invalid: use 1–64 characters, lowercase letters, digits, '_' or '-', starting with a letter`,
      );
    } else if (Object.hasOwn(CODEX_AGENTS_SETTINGS, roleName)) {
      check.report(
        'reserved-role-name',
        rolePath,
        `role name \`${roleName}\` is one of Codex's own [agents] settings (${Object.keys(CODEX_AGENTS_SETTINGS).join(', ')}); Codex would read [agents.${roleName}] as that setting and reject the whole configuration. Rename the role`,
      );
    }
    if (!isTable(value)) {
      check.report(
        'invalid-type',
        rolePath,
        `role \`${roleName}\` must be a table ([agents.${roleName}]), not ${describe(value)}`,
      );
      continue;
    }
    roles[roleName] = validateRole(context, roleName, value, rolePath);
  }

  return { roles, instructionFiles };
}
