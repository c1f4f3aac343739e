/**
 * What `run`, `exec` and `profile doctor` say before a session starts on a machine that cannot
 * contain its processes (`containment-unavailable`): a warning — Tool MCP servers, sandboxes and
 * their commands may then outlive the session, found afterwards only by the session's marker —
 * and an error for a profile with a `full-access` role, whose commands run with no sandbox at all:
 * such a session does not start without containment.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { Containment } from '../../foundation/process/containment.js';
import type { ProfileData } from '../../config/profile/types.js';

export function containmentDiagnostics(how: Containment, profile: ProfileData): Diagnostic[] {
  if (how.available) return [];
  const fullAccess = Object.values(profile.agents)
    .filter((role) => role.permissions === 'full-access')
    .map((role) => role.name);
  if (fullAccess.length > 0) {
    return [
      diagnostic({
        code: 'containment-unavailable',
        message: `processes cannot be contained on this machine (${how.reason}), and role${fullAccess.length > 1 ? 's' : ''} ${fullAccess.map((n) => `\`${n}\``).join(', ')} run${fullAccess.length > 1 ? '' : 's'} with permissions = "full-access", whose shell commands could outlive the session unseen: a session of this profile does not start. Install util-linux (unshare, setpriv) and allow user namespaces, or use "workspace-write" or "read-only"`,
      }),
    ];
  }
  return [
    diagnostic({
      severity: 'warning',
      code: 'containment-unavailable',
      message: `processes cannot be contained on this machine (${how.reason}): a Tool MCP server's or a sandboxed command's detached processes may outlive the session; only those that keep the session's marker are ended. Install util-linux (unshare, setpriv) and allow user namespaces`,
    }),
  ];
}
