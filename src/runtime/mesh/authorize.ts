/**
 * The grant check behind every `mmo_mesh` call (docs/design.md §4): a caller may spawn the roles in
 * its `spawn` list, and may message, wait on and stop participants whose role is in its `control`
 * list — nothing else, whoever started the participant. Pure.
 */
import type { ProfileData, RoleSpec } from '../../config/profile/types.js';

export type MeshAction = 'spawn' | 'send' | 'wait' | 'stop';

export type Authorization =
  { readonly ok: true } | { readonly ok: false; readonly message: string };

const VERB: Record<MeshAction, string> = {
  spawn: 'spawn',
  send: 'send messages to',
  wait: 'wait on',
  stop: 'stop',
};

function list(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.join(', ');
}

/**
 * The role named `name`, or undefined: only the profile's own roles count, never a property every
 * object has (`constructor`, `__proto__`), whatever a caller claims to be.
 */
export function roleOf(profile: ProfileData, name: string): RoleSpec | undefined {
  return Object.hasOwn(profile.agents, name) ? profile.agents[name] : undefined;
}

/** Whether role `caller` may perform `action` on a participant of role `target`. */
export function authorize(
  profile: ProfileData,
  caller: string,
  action: MeshAction,
  target: string,
): Authorization {
  const role = roleOf(profile, caller);
  if (role === undefined) {
    return {
      ok: false,
      message: `caller role '${caller}' is not part of profile '${profile.name}'`,
    };
  }
  const grant = action === 'spawn' ? role.spawn : role.control;
  const grantName = action === 'spawn' ? 'spawn' : 'control';
  if (grant.includes(target)) return { ok: true };
  const known = roleOf(profile, target) !== undefined;
  return {
    ok: false,
    message:
      `role '${caller}' may not ${VERB[action]} ${known ? `role '${target}'` : `unknown role '${target}'`}: ` +
      `its ${grantName} grant allows ${list(grant)}`,
  };
}

/** The roles whose participants `caller` may see in `list_participants` (its control grant). */
export function visibleRoles(profile: ProfileData, caller: string): ReadonlySet<string> {
  return new Set(roleOf(profile, caller)?.control ?? []);
}
