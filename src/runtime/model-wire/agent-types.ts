/**
 * Narrows Codex's `spawn_agent` tool to the native roles the calling role may start (pure).
 * Measured on Codex 0.149 and 0.171 alike: the roles are listed in the description of the
 * `agent_type` parameter, after `Available roles:`, as blocks `name: {` … `}`; no `enum` is sent.
 * A block of a role of the process that is not one of the caller's `native_agents` is removed;
 * Codex's own agent types (`default`, `explorer`, …) stay, and such a sub-agent is offered no MCP
 * server. An `enum` on `agent_type`, should a version send one, is narrowed the same way.
 */
import type { WireProcess, WireRole } from '../../config/compile/role-grants.js';

const MULTI_AGENT_NAMESPACE = 'multi_agent_v1';
const SPAWN_TOOL = 'spawn_agent';
const ROLES_MARKER = 'Available roles:';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text with every `name: {` … `}` block of a name in `drop` removed after the marker. */
export function dropRoleBlocks(text: string, drop: ReadonlySet<string>): string {
  const marker = text.indexOf(ROLES_MARKER);
  if (marker < 0 || drop.size === 0) return text;
  const head = text.slice(0, marker);
  const lines = text.slice(marker).split('\n');
  const out: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (skipping) {
      if (line === '}') skipping = false;
      continue;
    }
    const match = /^([A-Za-z0-9_-]+): \{\s*$/.exec(line);
    if (match?.[1] !== undefined && drop.has(match[1])) {
      skipping = true;
      continue;
    }
    out.push(line);
  }
  return head + out.join('\n');
}

/** A `spawn_agent` function tool narrowed to what `drop` leaves. */
function narrowSpawnTool(tool: Record<string, unknown>, drop: ReadonlySet<string>): unknown {
  const parameters = isRecord(tool.parameters) ? tool.parameters : undefined;
  const properties = isRecord(parameters?.properties) ? parameters.properties : undefined;
  const agentType = isRecord(properties?.agent_type) ? properties.agent_type : undefined;
  const out: Record<string, unknown> = { ...tool };
  if (typeof tool.description === 'string') {
    out.description = dropRoleBlocks(tool.description, drop);
  }
  if (parameters !== undefined && properties !== undefined && agentType !== undefined) {
    const narrowed: Record<string, unknown> = { ...agentType };
    if (typeof agentType.description === 'string') {
      narrowed.description = dropRoleBlocks(agentType.description, drop);
    }
    if (Array.isArray(agentType.enum)) {
      narrowed.enum = agentType.enum.filter((v) => typeof v !== 'string' || !drop.has(v));
    }
    out.parameters = { ...parameters, properties: { ...properties, agent_type: narrowed } };
  }
  return out;
}

/**
 * The request's tools with `spawn_agent` offering only `role`'s native roles (undefined role:
 * none of the process's roles).
 */
export function narrowAgentTypes(
  tools: readonly unknown[],
  role: WireRole | undefined,
  process: WireProcess,
): { tools: unknown[]; dropped: string[] } {
  const allowed = new Set(role?.native ?? []);
  const drop = new Set(
    Object.keys(process.roles).filter((name) => name !== process.root && !allowed.has(name)),
  );
  // the root role is a role of the process too: a sub-agent is never offered to start it
  if (role !== undefined && role.role !== process.root && !allowed.has(process.root)) {
    drop.add(process.root);
  }
  if (drop.size === 0) return { tools: [...tools], dropped: [] };
  const narrow = (tool: unknown): unknown =>
    isRecord(tool) && tool.name === SPAWN_TOOL ? narrowSpawnTool(tool, drop) : tool;
  const out = tools.map((tool) => {
    if (isRecord(tool) && tool.type === 'namespace' && tool.name === MULTI_AGENT_NAMESPACE) {
      return Array.isArray(tool.tools) ? { ...tool, tools: tool.tools.map(narrow) } : tool;
    }
    return narrow(tool);
  });
  return { tools: out, dropped: [...drop].sort() };
}
