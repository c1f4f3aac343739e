/**
 * What one Responses request offers a thread's role, narrowed to its grant (pure): the `tools`
 * array (servers and tools, resource functions, `spawn_agent`'s types, `mmo_mesh`'s descriptions,
 * and the servers `tool_search`'s description names), code mode's deferred namespaces in a
 * developer text, and earlier tool searches' results in the input. With no role, no MCP server
 * is offered at all.
 */
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import {
  reachesResources,
  type WireProcess,
  type WireRole,
} from '../../config/compile/role-grants.js';
import { narrowAgentTypes } from './agent-types.js';
import { narrowDeferredTools } from './deferred-tools.js';
import { filterTools } from './filter-tools.js';
import { describeMeshFor } from './mesh-offer.js';
import { narrowSearchOutputs, narrowSearchSources } from './tool-search.js';

export interface NarrowedRequest {
  /** The request's new `tools`. */
  readonly offered: unknown[];
  /** The request's new `input` (the same value when nothing in it changed). */
  readonly input: unknown;
  /** Everything removed, as `server` or `server.tool`, each once. */
  readonly removed: string[];
  /** Servers (and `mmo_mesh`) left in `tools`, with the tools left of each. */
  readonly kept: Record<string, string[]>;
  /** Codex's generic resource functions removed from `tools`. */
  readonly functionsRemoved: string[];
  /** Roles of the process removed from `spawn_agent`'s agent types. */
  readonly agentTypesRemoved: string[];
}

/** A list of tools narrowed to `role`: servers, tools, resource functions, agent types, mesh. */
function narrowList(
  list: readonly unknown[],
  role: WireRole | undefined,
  process: WireProcess,
  codex: CodexVersionFacts,
) {
  const resources = role !== undefined && reachesResources(process, role);
  const filtered = filterTools(list, role, process.servers, resources, codex);
  const typed = narrowAgentTypes(filtered.tools, role, process);
  return { filtered, typed, tools: describeMeshFor(typed.tools, role) };
}

export function narrowRequest(
  tools: readonly unknown[],
  input: unknown,
  role: WireRole | undefined,
  process: WireProcess,
  codex: CodexVersionFacts,
): NarrowedRequest {
  const own = narrowList(tools, role, process, codex);
  // 0.149 names the process's servers in `tool_search`'s own description
  const sources = narrowSearchSources(own.tools, role, process.servers, codex);
  // in code mode the servers are named in a developer text instead
  const deferred = narrowDeferredTools(input, role, process.servers, codex);
  // a tool search's results, narrowed like `tools`
  const search = narrowSearchOutputs(deferred.input, (list) => {
    const found = narrowList(list, role, process, codex);
    return {
      tools: found.tools,
      removed: [
        ...found.filtered.removed,
        ...found.filtered.functionsRemoved,
        ...found.typed.dropped,
      ],
    };
  });
  return {
    offered: [...sources.tools],
    input: search.input,
    removed: [
      ...new Set([
        ...own.filtered.removed,
        ...deferred.removed,
        ...search.removed,
        ...sources.removed,
      ]),
    ],
    kept: own.filtered.kept,
    functionsRemoved: own.filtered.functionsRemoved,
    agentTypesRemoved: own.typed.dropped,
  };
}
