/**
 * What `run`, `exec` and `profile doctor` say about the host view (docs/design.md §9) before a
 * session starts: nothing where it can be built; where it cannot, a warning naming why, and an
 * error for a profile with a role whose shell has the network (workspace-write with
 * `network_access`, or full access) — such a shell reaches the operator's daemons — unless the
 * operator accepted that risk (`--accept-host-risk`).
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { HostView } from '../../foundation/process/host-view.js';
import type { ProfileData, RoleSpec } from '../../config/profile/types.js';

/** Whether `role`'s shell commands can open network sockets. */
export function shellHasNetwork(role: RoleSpec): boolean {
  return (
    role.permissions === 'full-access' ||
    (role.permissions === 'workspace-write' && role.network_access)
  );
}

const FIX =
  "install bubblewrap (Debian: `apt-get install bubblewrap`) or use Codex's npm package, which ships it, and allow user namespaces";

export function hostViewDiagnostics(
  view: HostView,
  profile: ProfileData,
  acceptRisk: boolean,
): Diagnostic[] {
  if (view.available) return [];
  const networked = Object.values(profile.agents)
    .filter(shellHasNetwork)
    .map((role) => `\`${role.name}\``);
  const what = `the host view cannot be built on this machine (${view.reason}): a sandboxed shell can see the shared /tmp and /run/user, and with network on it can connect to the operator's Unix sockets (tmux, ssh-agent, the D-Bus session bus), whose daemons do what the operator could`;
  if (networked.length === 0 || acceptRisk) {
    return [
      diagnostic({
        severity: 'warning',
        code: 'host-view-unavailable',
        message: `${what}${networked.length > 0 ? `; role${networked.length > 1 ? 's' : ''} ${networked.join(', ')} ha${networked.length > 1 ? 've' : 's'} network on and the risk was accepted with --accept-host-risk` : ''}; ${FIX}`,
      }),
    ];
  }
  return [
    diagnostic({
      code: 'host-view-required',
      message: `${what}; role${networked.length > 1 ? 's' : ''} ${networked.join(', ')} ha${networked.length > 1 ? 've' : 's'} network on, so a session of this profile does not start. ${FIX[0]?.toUpperCase() ?? ''}${FIX.slice(1)}; or set network_access = false; or pass --accept-host-risk to start anyway`,
    }),
  ];
}
