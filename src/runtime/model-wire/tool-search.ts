/**
 * Deferred MCP tools found through Codex's client-side `tool_search` (pure). Models whose catalog
 * entry defers MCP tools (`gpt-5.5`) are offered none of them up front: the model searches, and
 * Codex answers in the next request with a `tool_search_output` item whose `tools` have the shape
 * of a request's `tools` array. Each such item is narrowed to the thread's role like `tools`:
 * servers and tools, resource functions, `mmo_mesh`'s descriptions and `spawn_agent`'s types.
 */
import { isDeepStrictEqual } from 'node:util';

import { MCP_NAMESPACE_PREFIX, type CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { WireRole } from '../../config/compile/role-grants.js';
import { mayNameNamespace, narrowListedNames } from './deferred-tools.js';

/** Codex 0.149's `tool_search` description lists its sources under this line. */
const SOURCES_HEADING = 'You have access to tools from the following sources:';
/** One source: `- <server>` (a server of the process), or `- <title>: <what it is>`. */
const SOURCE = /^- ([^:]+?)(?::.*)?$/;

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

/** How a list of tools is narrowed to a thread's role: the list left, and what was removed. */
export type NarrowTools = (tools: readonly unknown[]) => {
  readonly tools: unknown[];
  readonly removed: readonly string[];
};

/**
 * `input` with each `tool_search_output`'s tools narrowed by `narrow` (the same narrowing as the
 * request's `tools`), and what was removed; `input` itself when nothing changed.
 */
export function narrowSearchOutputs(
  input: unknown,
  narrow: NarrowTools,
): { input: unknown; removed: string[] } {
  if (!Array.isArray(input)) return { input, removed: [] };
  const removed: string[] = [];
  const given = input as unknown[];
  const out = given.map((item: unknown) => {
    if (!isSearchOutput(item)) return item;
    const narrowed = narrow(item.tools);
    removed.push(...narrowed.removed);
    return isDeepStrictEqual(narrowed.tools, item.tools)
      ? item
      : { ...item, tools: narrowed.tools };
  });
  const changed = out.some((item, at) => item !== given[at]);
  return changed ? { input: out, removed } : { input, removed };
}

/**
 * `tools` with the MCP servers that Codex 0.149's `tool_search` description names as its sources
 * narrowed to those `role` was granted (a source that is no server of the process stays), and the
 * servers removed; `tools` itself when nothing changed.
 */
export function narrowSearchSources(
  tools: readonly unknown[],
  role: WireRole | undefined,
  servers: readonly string[],
  codex: CodexVersionFacts,
): { tools: readonly unknown[]; removed: string[] } {
  const removed: string[] = [];
  const keep = (name: string): boolean => {
    const named = mayNameNamespace(role, `${MCP_NAMESPACE_PREFIX}${name}`, servers, codex);
    if (named.server === undefined) return true;
    if (!named.keep) removed.push(named.server);
    return named.keep;
  };
  const out = tools.map((tool) => {
    if (!isRecord(tool) || tool.type !== 'tool_search' || typeof tool.description !== 'string') {
      return tool;
    }
    const description = narrowListedNames(
      tool.description,
      SOURCES_HEADING,
      (line) => SOURCE.exec(line)?.[1],
      keep,
    );
    return description === tool.description ? tool : { ...tool, description };
  });
  return removed.length === 0 ? { tools, removed } : { tools: out, removed };
}
