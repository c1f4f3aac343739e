/**
 * The comparisons behind `profile smoke` (pure): the tools a role is granted, the tools its model
 * request offered mapped back to operator names (server IDs through the version table's
 * namespace mapping, tool names through Codex's model-safe names), their per-server differences,
 * and the `mmo_mesh` tools a role received.
 */
import {
  MCP_NAMESPACE_PREFIX,
  serverOfNamespace,
  type CodexVersionFacts,
} from '../../config/codex/codex-versions.js';
import { MESH_SERVER_NAME } from '../../runtime/protocol/mesh-protocol.js';
import type { ResolvedPlan, ResolvedProcess } from '../../config/profile/types.js';

/** Tool names by server. */
export type ToolsByServer = Record<string, string[]>;

/** Tools granted to a role of the plan, by server (sorted). */
export function grantedTools(plan: ResolvedPlan, role: string): ToolsByServer {
  const out: ToolsByServer = {};
  for (const [server, grant] of Object.entries(plan.roles[role]?.grants ?? {})) {
    out[server] = [...grant.enabled_tools].sort();
  }
  return out;
}

/**
 * Codex offers MCP tools to the model under model-safe names (`get-sum` becomes `get_sum`): map
 * each received name back to the operator's name it stands for, so grants compare like for like.
 */
export function modelToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

/** The servers of a process as Codex has them: its Tool MCP servers, and `mmo_mesh` with a mesh. */
export function processServers(process: ResolvedProcess): string[] {
  return process.mesh ? [...process.servers, MESH_SERVER_NAME] : [...process.servers];
}

/**
 * What a request offered (keyed by the names Codex offered the servers under, `everything_http`)
 * in operator names: each offered name read back to the one server of `servers` this Codex offers
 * under it (`everything-http`), each tool to the enabled tool it stands for. A namespace that
 * stands for no server of the process is kept whole (`mcp__codex_apps`), a tool that stands for
 * no enabled tool as offered, so either shows as received but not granted.
 */
export function toOperatorNames(
  offered: Readonly<Record<string, readonly string[]>>,
  plan: ResolvedPlan,
  servers: readonly string[],
  codex: CodexVersionFacts,
): ToolsByServer {
  const out: ToolsByServer = {};
  for (const [name, names] of Object.entries(offered)) {
    const namespace = `${MCP_NAMESPACE_PREFIX}${name}`;
    const server = serverOfNamespace(codex, namespace, servers) ?? namespace;
    const byModelName = new Map<string, string>();
    for (const tool of plan.servers[server]?.enabled_tools ?? []) {
      byModelName.set(modelToolName(tool), tool);
    }
    const tools = names.map((n) => byModelName.get(n) ?? n);
    out[server] = [...(out[server] ?? []), ...tools].sort();
  }
  return out;
}

/** `a` minus `b`, per server; servers with nothing left are omitted. */
export function toolDifference(a: ToolsByServer, b: ToolsByServer): ToolsByServer {
  const out: ToolsByServer = {};
  for (const [server, tools] of Object.entries(a)) {
    const other = new Set(b[server] ?? []);
    const left = tools.filter((t) => !other.has(t));
    if (left.length > 0) out[server] = left;
  }
  return out;
}

/** `server.tool, …` for messages. */
export function formatTools(tools: ToolsByServer): string {
  return Object.entries(tools)
    .flatMap(([server, names]) => names.map((n) => `${server}.${n}`))
    .join(', ');
}

/** The Tool MCP part of what a request offered: every server but `mmo_mesh`, names sorted. */
export function withoutMesh(tools: Readonly<Record<string, readonly string[]>>): ToolsByServer {
  const out: ToolsByServer = {};
  for (const [server, names] of Object.entries(tools)) {
    if (server !== MESH_SERVER_NAME) out[server] = [...names].sort();
  }
  return out;
}

/** The `mmo_mesh` tools a request offered, sorted. */
export function meshTools(tools: Readonly<Record<string, readonly string[]>>): string[] {
  return [...(tools[MESH_SERVER_NAME] ?? [])].sort();
}
