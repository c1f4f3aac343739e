/**
 * Calls a model made to tools its Codex process does not have (pure): a `function_call` item of a
 * request's `input` whose name is none of the functions the request's own `tools` (as Codex sent
 * them, before the wire narrowed them) lists and that Codex answered itself ("unsupported
 * call"): it never reaches a server, so the wire is the only place that sees it.
 */
import { MESH_SERVER_NAME } from '../protocol/mesh-protocol.js';

const MCP_PREFIX = 'mcp__';

export interface UnofferedCall {
  readonly callId: string;
  /** The call as the model wrote it: its namespace (if any) and name. */
  readonly namespace: string | undefined;
  readonly name: string;
  /** The MCP server the name points at (`mcp__<server>`), or `codex` for any other function. */
  readonly server: string;
  readonly tool: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every callable name of a `tools` array: `name`, and `namespace.tool` and `namespace__tool`. */
export function callableNames(tools: readonly unknown[]): Set<string> {
  const names = new Set<string>();
  for (const tool of tools) {
    if (!isRecord(tool) || typeof tool.name !== 'string') continue;
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) {
      for (const inner of tool.tools) {
        if (!isRecord(inner) || typeof inner.name !== 'string') continue;
        names.add(`${tool.name}.${inner.name}`);
        names.add(`${tool.name}__${inner.name}`);
      }
    } else names.add(tool.name);
  }
  return names;
}

/** The server (`codex` for a function of Codex's own) and tool a call's name points at. */
export function splitName(
  namespace: string | undefined,
  name: string,
): { server: string; tool: string } {
  const full = namespace !== undefined ? `${namespace}__${name}` : name;
  if (!full.startsWith(MCP_PREFIX)) return { server: 'codex', tool: full };
  const rest = full.slice(MCP_PREFIX.length);
  const at = namespace !== undefined ? namespace.length - MCP_PREFIX.length : rest.indexOf('__');
  if (at <= 0) return { server: rest, tool: '' };
  const server = rest.slice(0, at);
  return {
    server: server === MESH_SERVER_NAME ? MESH_SERVER_NAME : server,
    tool: rest.slice(at + 2),
  };
}

/**
 * The tools a request offers besides its `tools` array: those of its `additional_tools` input
 * items (Codex's code mode lists its functions there, and sends no `tools`).
 */
export function additionalTools(input: unknown): unknown[] {
  if (!Array.isArray(input)) return [];
  return input.flatMap((item) =>
    isRecord(item) && item.type === 'additional_tools' && Array.isArray(item.tools)
      ? (item.tools as unknown[])
      : [],
  );
}

/**
 * Codex's own answers to a call of a function, or a free-form tool, it does not have, on both
 * supported versions (a plain string output).
 */
export const CODEX_UNSUPPORTED = 'unsupported call: ';
export const CODEX_UNSUPPORTED_CUSTOM = 'unsupported custom tool call: ';

const CALLS = new Set(['function_call', 'custom_tool_call']);
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output']);

/** The call ids of `input` whose output shows Codex ran the call (not its own refusal). */
function ranCalls(input: readonly unknown[]): Set<string> {
  const ran = new Set<string>();
  for (const item of input) {
    if (!isRecord(item) || typeof item.type !== 'string' || !OUTPUTS.has(item.type)) continue;
    if (typeof item.call_id !== 'string') continue;
    const output = item.output;
    if (
      typeof output === 'string' &&
      (output.startsWith(CODEX_UNSUPPORTED) || output.startsWith(CODEX_UNSUPPORTED_CUSTOM))
    ) {
      continue;
    }
    ran.add(item.call_id);
  }
  return ran;
}

/**
 * The `function_call` and `custom_tool_call` items of `input` not among `names`, except those in `seen` (added to it)
 * and those Codex ran all the same: a model whose MCP tools (and agent functions) Codex defers
 * behind `tool_search` may call one that no request listed, and Codex runs it.
 */
export function unofferedCalls(
  input: unknown,
  names: ReadonlySet<string>,
  seen: Set<string>,
): UnofferedCall[] {
  const out: UnofferedCall[] = [];
  if (!Array.isArray(input)) return out;
  const ran = ranCalls(input);
  for (const item of input) {
    if (!isRecord(item) || typeof item.type !== 'string' || !CALLS.has(item.type)) continue;
    if (typeof item.name !== 'string') continue;
    const callId = typeof item.call_id === 'string' ? item.call_id : '';
    if (callId === '' || seen.has(callId)) continue;
    seen.add(callId);
    const namespace = typeof item.namespace === 'string' ? item.namespace : undefined;
    const offered =
      namespace !== undefined
        ? names.has(`${namespace}.${item.name}`) || names.has(`${namespace}__${item.name}`)
        : names.has(item.name);
    if (!offered && !ran.has(callId)) {
      out.push({ callId, namespace, name: item.name, ...splitName(namespace, item.name) });
    }
  }
  return out;
}
