/**
 * The `[servers.ID.lease]` table of `tool-mcp.lock` (pure): a pinned server's `initialize`
 * answer and its pinned tools as listed, each held as canonical JSON text like the pinned input
 * schemas. Parsing returns the lease or the key path and reason it cannot be used.
 */
import { canonicalJson } from '../snapshot/canonical-json.js';
import type { ServerLease } from '../snapshot/types.js';

const LEASE_KEYS = new Set(['server_info', 'capabilities', 'instructions', 'tools']);

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonOf(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export type LeaseParse =
  | { readonly ok: true; readonly lease: ServerLease; readonly unknownKeys: readonly string[] }
  | { readonly ok: false; readonly key?: string; readonly reason: string };

/** Reads a lease table; `protocolVersion` is the pin's `protocol_version`. */
export function parseLease(value: unknown, protocolVersion: string | undefined): LeaseParse {
  if (!isTable(value)) return { ok: false, reason: 'lease must be a table' };
  if (protocolVersion === undefined) {
    return { ok: false, reason: 'a lease needs the pin to record protocol_version' };
  }
  const serverInfo = jsonOf(value.server_info);
  if (!isTable(serverInfo) || typeof serverInfo.name !== 'string') {
    return {
      ok: false,
      key: 'server_info',
      reason: 'server_info must be the JSON of an object with a name',
    };
  }
  const capabilities = jsonOf(value.capabilities);
  if (!isTable(capabilities)) {
    return { ok: false, key: 'capabilities', reason: 'capabilities must be the JSON of an object' };
  }
  const instructions = value.instructions;
  if (instructions !== undefined && typeof instructions !== 'string') {
    return { ok: false, key: 'instructions', reason: 'instructions must be a string' };
  }
  const tools = jsonOf(value.tools);
  if (
    !Array.isArray(tools) ||
    !tools.every((tool) => isTable(tool) && typeof tool.name === 'string')
  ) {
    return {
      ok: false,
      key: 'tools',
      reason: 'tools must be the JSON of an array of tools, each with a name',
    };
  }
  return {
    ok: true,
    lease: {
      protocol_version: protocolVersion,
      server_info: serverInfo,
      capabilities,
      ...(instructions !== undefined ? { instructions } : {}),
      tools: tools as Record<string, unknown>[],
    },
    unknownKeys: Object.keys(value).filter((key) => !LEASE_KEYS.has(key)),
  };
}

/** The lease table as `tool-mcp pin` writes it (its protocol version is the pin's own key). */
export function renderLease(lease: ServerLease): Record<string, unknown> {
  return {
    server_info: canonicalJson(lease.server_info),
    capabilities: canonicalJson(lease.capabilities),
    ...(lease.instructions !== undefined ? { instructions: lease.instructions } : {}),
    tools: canonicalJson(lease.tools),
  };
}
