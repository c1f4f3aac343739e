/**
 * Narrows the `tools` of one Responses request to what a role was granted (pure). MCP servers
 * reach the model as `{type:"namespace", name:"mcp__<name>", tools:[…]}` (a flat function
 * `mcp__<name>__<tool>` is read the same way), each name read back to the one server of the
 * process the Codex version offers under it (`a-b` as `mcp__a_b`); a namespace that stands for no
 * server, or for more than one, is removed like a server the role was not granted: whole, `mmo_mesh` unless the role has spawn/control, every other MCP tool the role was not
 * granted is removed from its namespace. Codex's generic resource functions (which name any
 * server of the process) stay only for a role that can reach some server's resources at the
 * gateway. With no role (an unattributed request) every MCP server and resource function is
 * removed. Codex's other tools (shell, spawn_agent, …) are left as they are.
 */
import {
  MCP_NAMESPACE_PREFIX,
  NEWEST_CODEX,
  serverOfFlatName,
  serverOfNamespace,
  type CodexVersionFacts,
} from '../../config/codex/codex-versions.js';
import { MESH_SERVER_NAME } from '../protocol/mesh-protocol.js';
import { modelSafeName, type WireRole } from '../../config/compile/role-grants.js';

/**
 * The functions both supported Codex versions offer every thread to reach MCP resources of any
 * configured server by name (`resources/list`, `resources/templates/list`, `resources/read`).
 */
export const RESOURCE_FUNCTIONS: ReadonlySet<string> = new Set([
  'list_mcp_resources',
  'list_mcp_resource_templates',
  'read_mcp_resource',
]);

export interface FilteredTools {
  /** The request's new `tools` array. */
  readonly tools: unknown[];
  /** What was removed, as `server` (the whole server) or `server.tool`, in request order. */
  readonly removed: string[];
  /** Servers (and `mmo_mesh`) left in the request, with the tools left of each. */
  readonly kept: Record<string, string[]>;
  /** Generic resource functions removed from the request. */
  readonly functionsRemoved: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `role` may be offered `tool` of `server` (any tool of it, for `undefined`). */
export function allowed(
  role: WireRole | undefined,
  server: string,
  tool: string | undefined,
): boolean {
  if (role === undefined) return false;
  if (server === MESH_SERVER_NAME) return role.mesh;
  const granted = role.tools[server];
  if (granted === undefined) return false;
  return tool === undefined || granted.includes(modelSafeName(tool)) || granted.includes(tool);
}

/**
 * The request's `tools` narrowed to `role` (undefined: strip every MCP server). `servers` are the
 * process's server IDs, read back from namespace names the way `codex` offers them; `resources`
 * says whether the role keeps the generic resource functions.
 */
export function filterTools(
  tools: readonly unknown[],
  role: WireRole | undefined,
  servers: readonly string[],
  resources = false,
  codex: CodexVersionFacts = NEWEST_CODEX,
): FilteredTools {
  const out: unknown[] = [];
  const removed: string[] = [];
  const functionsRemoved: string[] = [];
  const kept: Record<string, string[]> = {};
  const keep = (server: string, tool: string): void => {
    (kept[server] ??= []).push(tool);
  };
  for (const tool of tools) {
    const name = isRecord(tool) && typeof tool.name === 'string' ? tool.name : undefined;
    if (name !== undefined && RESOURCE_FUNCTIONS.has(name) && (role === undefined || !resources)) {
      functionsRemoved.push(name);
      continue;
    }
    if (!isRecord(tool) || name === undefined || !name.startsWith(MCP_NAMESPACE_PREFIX)) {
      out.push(tool);
      continue;
    }
    if (tool.type === 'namespace') {
      const server = serverOfNamespace(codex, name, servers);
      if (server === undefined || !allowed(role, server, undefined)) {
        removed.push(server ?? name.slice(MCP_NAMESPACE_PREFIX.length));
        continue;
      }
      const inner = Array.isArray(tool.tools) ? tool.tools : [];
      const left = inner.filter((t) => {
        const toolName = isRecord(t) && typeof t.name === 'string' ? t.name : '';
        const ok = allowed(role, server, toolName);
        if (ok) keep(server, toolName);
        else removed.push(`${server}.${toolName}`);
        return ok;
      });
      if (left.length > 0) out.push({ ...tool, tools: left });
      else if (!removed.includes(server)) removed.push(server);
      continue;
    }
    const split = serverOfFlatName(codex, name, servers);
    if (split !== undefined && allowed(role, split[0], split[1])) {
      keep(split[0], split[1]);
      out.push(tool);
    } else {
      removed.push(split !== undefined ? `${split[0]}.${split[1]}` : name);
    }
  }
  for (const [server, names] of Object.entries(kept)) kept[server] = [...new Set(names)].sort();
  return { tools: out, removed, kept, functionsRemoved };
}
