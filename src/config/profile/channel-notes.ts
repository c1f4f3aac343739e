/**
 * Where a profile's own settings leave a session's control channels unprotected, pure: the
 * approval socket's key and the mmo_mesh and gateway tokens are kept from the model by the
 * sandbox (a denied directory, a separate PID namespace), and a role with `permissions =
 * "full-access"` has no sandbox. `profile doctor`, `run` and `exec` report it before a session
 * runs.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { keyLocation } from '../../foundation/toml/key-positions.js';
import type { PlanSource } from './resolve-plan.js';
import type { ProfileData, ResolvedPlan } from './types.js';

/** `approval-channel-unprotected` (warning) for each full-access role a session runs. */
export function unprotectedChannels(
  profile: ProfileData,
  plan: ResolvedPlan,
  source?: PlanSource,
): Diagnostic[] {
  const roles = [...new Set(plan.processes.flatMap((p) => p.roles))];
  return roles
    .filter((name) => profile.agents[name]?.permissions === 'full-access')
    .map((name) =>
      diagnostic({
        severity: 'warning',
        code: 'approval-channel-unprotected',
        message: `role \`${name}\` has permissions = "full-access": its shell runs without a sandbox, as your OS user, so the model can read the session's approval key and answer the session's approval requests itself, and can read other processes' environments (/proc/<pid>/environ) with their mmo_mesh and gateway tokens. Nothing codex-mmo does protects those channels from this role; use "workspace-write" (with network_access = false where possible) where approvals must come from a person`,
        ...keyLocation(source?.file, source?.positions, ['agents', name, 'permissions']),
      }),
    );
}
