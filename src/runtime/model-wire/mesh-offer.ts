/**
 * The `mmo_mesh` tools as a role is offered them (pure): Codex lists the mesh tools once per
 * process, described with the process root's spawn and control lists; a native role keeping
 * `mmo_mesh` gets each tool's description written for its own lists, as its calls are checked.
 */
import { MESH_SERVER_NAME, MESH_TOOL_NAMES, meshToolDescriptions } from '../mesh/mesh-tools.js';
import type { WireRole } from '../../config/compile/role-grants.js';

const NAMESPACE = `mcp__${MESH_SERVER_NAME}`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isMeshTool(name: unknown): name is (typeof MESH_TOOL_NAMES)[number] {
  return typeof name === 'string' && (MESH_TOOL_NAMES as readonly string[]).includes(name);
}

/** The request's tools with the mesh tools described for `role`'s own spawn and control lists. */
export function describeMeshFor(tools: readonly unknown[], role: WireRole | undefined): unknown[] {
  if (role === undefined || !role.mesh) return [...tools];
  const descriptions = meshToolDescriptions(role);
  const rewrite = (tool: unknown, name: unknown): unknown =>
    isRecord(tool) && isMeshTool(name) ? { ...tool, description: descriptions[name] } : tool;
  return tools.map((tool) => {
    if (!isRecord(tool)) return tool;
    if (tool.type === 'namespace' && tool.name === NAMESPACE && Array.isArray(tool.tools)) {
      return {
        ...tool,
        tools: tool.tools.map((t) => rewrite(t, isRecord(t) ? t.name : undefined)),
      };
    }
    const flat = typeof tool.name === 'string' ? tool.name : '';
    return flat.startsWith(`${NAMESPACE}__`)
      ? rewrite(tool, flat.slice(NAMESPACE.length + 2))
      : tool;
  });
}
