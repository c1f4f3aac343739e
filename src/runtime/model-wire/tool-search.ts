/**
 * Deferred MCP tools found through Codex's client-side `tool_search` (pure). Models whose catalog
 * entry defers MCP tools (`gpt-5.5`) are offered none of them up front: the model searches, and
 * Codex answers in the next request with a `tool_search_output` item whose `tools` have the shape
 * of a request's `tools` array. Each such item is narrowed to the thread's role like `tools`.
 */
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { WireRole } from '../../config/compile/role-grants.js';
import { filterTools } from './filter-tools.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSearchOutput(item: unknown): item is Record<string, unknown> & { tools: unknown[] } {
  return isRecord(item) && item.type === 'tool_search_output' && Array.isArray(item.tools);
}

/**
 * True when a request's `tools` offer Codex's client-side `tool_search`: the process's MCP tools
 * are deferred, listed only once searched for, and Codex runs a call of one whether or not a
 * search listed it (measured on 0.149 and 0.171).
 */
export function defersTools(tools: readonly unknown[]): boolean {
  return tools.some((t) => isRecord(t) && t.type === 'tool_search');
}

/** Every tool the request's `tool_search_output` items hold, in order. */
export function searchedTools(input: unknown): unknown[] {
  if (!Array.isArray(input)) return [];
  return input.flatMap((item: unknown) => (isSearchOutput(item) ? item.tools : []));
}

/**
 * `input` with each `tool_search_output`'s tools narrowed to `role` (undefined: every MCP tool
 * removed), and what was removed (`server` or `server.tool`); `input` itself when nothing changed.
 */
export function narrowSearchOutputs(
  input: unknown,
  role: WireRole | undefined,
  servers: readonly string[],
  codex: CodexVersionFacts,
): { input: unknown; removed: string[] } {
  if (!Array.isArray(input)) return { input, removed: [] };
  const removed: string[] = [];
  const out = input.map((item: unknown) => {
    if (!isSearchOutput(item)) return item;
    const narrowed = filterTools(item.tools, role, servers, false, codex);
    if (narrowed.removed.length === 0) return item;
    removed.push(...narrowed.removed);
    return { ...item, tools: narrowed.tools };
  });
  return removed.length === 0 ? { input, removed } : { input: out, removed };
}
