/**
 * A role's sandbox settings in `profile.toml`: `permissions` and `network_access`, with the
 * warning when a network setting cannot take effect under the chosen permissions.
 */
import { suggest } from '../../foundation/diagnostics/did-you-mean.js';
import type { KeyPath } from '../../foundation/toml/key-positions.js';
import { describe, type PackCheck, type Table } from './pack-check.js';
import { PERMISSIONS, type Permissions } from './types.js';

export interface RoleSandbox {
  readonly permissions: Permissions;
  readonly networkAccess: boolean;
}

/** Checks `permissions` and `network_access`; invalid values fall back to the defaults. */
export function validateSandbox(
  check: PackCheck,
  roleName: string,
  table: Table,
  rolePath: KeyPath,
): RoleSandbox {
  let permissions: Permissions = 'read-only';
  const permissionsValue = check.requireString(table, 'permissions', rolePath, '`permissions`');
  if (permissionsValue !== undefined) {
    if ((PERMISSIONS as readonly string[]).includes(permissionsValue)) {
      permissions = permissionsValue as Permissions;
    } else {
      const guess = suggest(permissionsValue, PERMISSIONS);
      check.report(
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
      check.report(
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
    check.report(
      'network-access-ignored',
      [...rolePath, 'network_access'],
      `network_access = true has no effect for role \`${roleName}\`: with permissions = "read-only" Codex's sandbox keeps shell commands off the network, and Codex's configuration has a network switch only for the workspace-write sandbox. Use permissions = "workspace-write" to give shell commands network access, or remove network_access`,
      'warning',
    );
  } else if (network === false && permissions === 'full-access') {
    check.report(
      'network-access-ignored',
      [...rolePath, 'network_access'],
      `network_access = false has no effect for role \`${roleName}\`: with permissions = "full-access" Codex runs shell commands without a sandbox, so they keep network access. Use permissions = "workspace-write" to switch shell networking off, or remove network_access`,
      'warning',
    );
  }
  return { permissions, networkAccess };
}
