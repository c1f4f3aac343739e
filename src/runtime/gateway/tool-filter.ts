/**
 * What a relayed `tools/list` answer may carry (pure): only the tools the process is granted on
 * that server, each exactly as the server described it, and of a pinned server only the tools
 * whose surface still has its pinned digest — any other is withheld and reported as drift. The
 * digest is the one `tool-mcp pin` records: of every field as listed (`listed_digest`), or for
 * a pin made before lock_version 3 of the known surface (name, description, input schema,
 * known annotations).
 */
import {
  isRecord,
  knownAnnotations,
  listedDigest,
  surfaceDigests,
  toolSurfaceOf,
} from '../probe/tool-surface.js';
import type { ServerLease, ToolPin } from '../../config/snapshot/types.js';

/** What one route lets through. */
export interface ToolGate {
  /** Tools the process may see and call. */
  readonly allowed: ReadonlySet<string>;
  /** The server's pins; undefined when the server is not pinned (every granted tool passes). */
  readonly pins?: readonly ToolPin[];
  /**
   * What the pinned server answered `initialize` with at its pin (its lease's); undefined when
   * the pin recorded no lease, and then a pinned server's instructions are withheld.
   */
  readonly initialize?: Pick<ServerLease, 'server_info' | 'instructions'>;
}

export interface DriftedTool {
  /** The tool; for a part of the `initialize` answer, `initialize.<part>`. */
  readonly tool: string;
  /** Set when what drifted is part of the server's `initialize` answer, not a tool. */
  readonly part?: 'instructions' | 'serverInfo';
  /** The pinned digest, or undefined when the tool has no pin although its server has. */
  readonly pinned?: string;
  readonly current: string;
}

export interface FilteredList {
  /** The answer's `result` with `tools` narrowed (every other member unchanged). */
  readonly result: Record<string, unknown>;
  readonly drifted: readonly DriftedTool[];
}

/** The pin digest of one raw `tools/list` entry, computed as `tool-mcp pin` computes it. */
export function liveDigest(raw: Record<string, unknown>): string {
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const annotations = knownAnnotations(isRecord(raw.annotations) ? raw.annotations : undefined);
  const surface = toolSurfaceOf({
    name: typeof raw.name === 'string' ? raw.name : '',
    title: text(raw.title),
    description: text(raw.description),
    inputSchema: raw.inputSchema,
    ...(annotations !== undefined ? { annotations } : {}),
  });
  return surfaceDigests(surface).digest;
}

/** Narrows one `tools/list` result for `gate`. A result without a `tools` array passes as is. */
export function filterToolList(result: unknown, gate: ToolGate): FilteredList {
  if (!isRecord(result) || !Array.isArray(result.tools)) {
    return { result: isRecord(result) ? result : {}, drifted: [] };
  }
  const pins = gate.pins === undefined ? undefined : new Map(gate.pins.map((p) => [p.name, p]));
  const drifted: DriftedTool[] = [];
  const tools = result.tools.filter((raw: unknown) => {
    if (!isRecord(raw) || typeof raw.name !== 'string' || !gate.allowed.has(raw.name)) {
      return false;
    }
    if (pins === undefined) return true;
    const pin = pins.get(raw.name);
    // a lock_version 3 pin covers every field as listed; an older one the known surface
    const listed = pin?.listed_digest;
    const current = listed !== undefined ? listedDigest(raw) : liveDigest(raw);
    const pinned = listed ?? pin?.digest;
    if (pinned === current) return true;
    drifted.push({
      tool: raw.name,
      ...(pinned !== undefined ? { pinned } : {}),
      current,
    });
    return false;
  });
  return { result: { ...result, tools }, drifted };
}
