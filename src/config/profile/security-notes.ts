/**
 * The spec's security boundary applied to a resolved profile, pure: Codex's sandbox settings
 * (`permissions`, `network_access`) do not constrain external MCP servers, and servers whose
 * names Codex offers to the model under one name lose their predictable names. Reports where a
 * role's settings could be read as a promise they do not make.
 */
import {
  NEWEST_CODEX,
  offeredNameCollisions,
  offeredServerName,
  type CodexVersionFacts,
} from '../codex/codex-versions.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { RESERVED_SERVER_ID } from '../registry/types.js';
import { unprotectedChannels } from './channel-notes.js';
import {
  keyLocation,
  type KeyLocation,
  type KeyPath,
} from '../../foundation/toml/key-positions.js';
import type { PlanSource } from './resolve-plan.js';
import type { ProfileData, ResolvedPlan } from './types.js';

/**
 * `server-name-collision` (error) for servers of one Codex process that the given Codex version
 * (default: the newest supported) offers to the model under the same name: Codex then renames
 * each to `mcp__<name>_<hash>`, so neither the model nor codex-mmo's own checks (smoke, the
 * reserved `mmo_mesh`) can rely on the name. Registry IDs differing only in `-` versus `_` do it.
 */
export function serverNameCollisions(
  profile: ProfileData,
  plan: ResolvedPlan,
  source?: PlanSource,
  codex: CodexVersionFacts = NEWEST_CODEX,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const process of plan.processes) {
    const ids = process.mesh ? [...process.servers, RESERVED_SERVER_ID] : [...process.servers];
    for (const group of offeredNameCollisions(codex, ids)) {
      const name = offeredServerName(codex, group[0] ?? '') ?? '';
      const granted = group.find((id) => id !== RESERVED_SERVER_ID) ?? '';
      const holder =
        process.roles.find((role) => profile.agents[role]?.grants[granted] !== undefined) ??
        process.root;
      out.push(
        diagnostic({
          code: 'server-name-collision',
          message: `servers ${group.map((id) => `\`${id}\``).join(' and ')} of \`${process.root}\`'s Codex process would both be offered to the model as \`mcp__${name}\` (Codex ${codex.series} turns every character outside [A-Za-z0-9_] into \`_\`), so Codex renames each to \`mcp__${name}_<hash>\` and no tool keeps a predictable name${group.includes(RESERVED_SERVER_ID) ? `, the runtime's own \`${RESERVED_SERVER_ID}\` included` : ''}. Give one of them an ID that differs in more than \`-\` versus \`_\` in the registry, or grant them to roles of different processes`,
          server: granted,
          ...keyLocation(source?.file, source?.positions, [
            'agents',
            holder,
            'tool_mcp_servers',
            granted,
          ]),
        }),
      );
    }
  }
  return out;
}

/**
 * `unapproved-mcp-tools` (info) for a read-only role granted tools that run without approval
 * (`approve`), `network-access-not-mcp` (info) for a role without shell networking that is
 * granted a Streamable HTTP server, `server-name-collision` (see `serverNameCollisions`) and
 * `approval-channel-unprotected` (see `unprotectedChannels`).
 */
export function securityNotes(
  profile: ProfileData,
  plan: ResolvedPlan,
  source?: PlanSource,
  codex: CodexVersionFacts = NEWEST_CODEX,
): Diagnostic[] {
  const out: Diagnostic[] = [
    ...serverNameCollisions(profile, plan, source, codex),
    ...unprotectedChannels(profile, plan, source),
  ];
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
