/**
 * The spec's security boundary applied to a resolved profile, pure: Codex's sandbox settings
 * (`permissions`, `network_access`) do not constrain external MCP servers. Reports where a
 * role's settings could be read as a promise they do not make.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { unprotectedChannels } from './channel-notes.js';
import {
  keyLocation,
  type KeyLocation,
  type KeyPath,
} from '../../foundation/toml/key-positions.js';
import type { PlanSource } from './resolve-plan.js';
import type { ProfileData, ResolvedPlan } from './types.js';

/**
 * `unapproved-mcp-tools` (info) for a read-only role granted tools that run without approval
 * (`approve`), `network-access-not-mcp` (info) for a role without shell networking that is
 * granted a Streamable HTTP server and `approval-channel-unprotected` (see `unprotectedChannels`).
 * (`server-name-collision` is an error of resolving the plan: see `serverNameCollisions`.)
 */
export function securityNotes(
  profile: ProfileData,
  plan: ResolvedPlan,
  source?: PlanSource,
): Diagnostic[] {
  const out: Diagnostic[] = [...unprotectedChannels(profile, plan, source)];
  const at = (path: KeyPath): KeyLocation => keyLocation(source?.file, source?.positions, path);
  for (const role of Object.values(profile.agents)) {
    const resolved = plan.roles[role.name];
    if (resolved === undefined) continue;
    if (role.permissions === 'read-only') {
      const unapproved: string[] = [];
      for (const [server, grant] of Object.entries(resolved.grants)) {
        const definition = plan.servers[server];
        if (definition === undefined) continue;
        for (const tool of grant.enabled_tools) {
          const mode =
            definition.tools?.[tool]?.approval_mode ?? definition.default_tools_approval_mode;
          if (mode === 'approve') unapproved.push(`${server}:${tool}`);
        }
      }
      if (unapproved.length > 0) {
        out.push(
          diagnostic({
            severity: 'info',
            code: 'unapproved-mcp-tools',
            message: `role \`${role.name}\` is read-only, but \`permissions\` governs the Codex filesystem sandbox, not MCP tools: ${unapproved.join(', ')} run without asking (approval mode \`approve\`) and may change external state. Ask the operator for \`prompt\` or \`writes\` on mutating tools, or narrow this grant`,
            ...at(['agents', role.name, 'tool_mcp_servers']),
          }),
        );
      }
    }
    if (!role.network_access) {
      const http = Object.keys(resolved.grants).filter(
        (s) => plan.servers[s]?.transport === 'streamable_http',
      );
      if (http.length > 0) {
        out.push(
          diagnostic({
            severity: 'info',
            code: 'network-access-not-mcp',
            message: `role \`${role.name}\` ${source?.positions?.has(['agents', role.name, 'network_access']) === true ? 'sets network_access = false' : 'has no shell network access (network_access is false by default)'}, which limits sandboxed shell networking only; Codex still connects to ${http.join(', ')} over HTTP, and local MCP servers do their own networking`,
            ...at(['agents', role.name, 'tool_mcp_servers', http[0] ?? '']),
          }),
        );
      }
    }
  }
  return out;
}
