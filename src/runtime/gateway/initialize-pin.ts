/**
 * What a relayed `initialize` answer of a pinned server may carry (pure): the instructions and
 * serverInfo the pin recorded, never new ones. A server that answers other ones is given its
 * pinned ones instead (no instructions when the pin has no record of them: fail closed), and
 * the difference is reported as drift. Capabilities and protocol version pass as answered.
 */
import { canonicalJson } from '../../config/snapshot/canonical-json.js';
import { jsonDigest } from '../probe/tool-surface.js';
import type { DriftedTool, ToolGate } from './tool-filter.js';

export interface PinnedInitializeAnswer {
  /** The answer's `result` with instructions and serverInfo as pinned. */
  readonly result: Record<string, unknown>;
  readonly drifted: readonly DriftedTool[];
}

function textOf(value: unknown): string {
  return canonicalJson(value === undefined ? null : value);
}

/** Holds an `initialize` result to the pin of `gate`; an unpinned server's passes as is. */
export function pinInitialize(
  result: Readonly<Record<string, unknown>>,
  gate: ToolGate,
): PinnedInitializeAnswer {
  if (gate.pins === undefined) return { result: { ...result }, drifted: [] };
  const pinned = gate.initialize;
  const drifted: DriftedTool[] = [];
  const out: Record<string, unknown> = { ...result };
  const instructions = pinned?.instructions;
  if (textOf(result.instructions) !== textOf(instructions)) {
    drifted.push({
      tool: 'initialize.instructions',
      part: 'instructions',
      ...(pinned !== undefined ? { pinned: jsonDigest(instructions ?? null) } : {}),
      current: jsonDigest(result.instructions ?? null),
    });
  }
  if (instructions !== undefined) out.instructions = instructions;
  else delete out.instructions;
  if (pinned !== undefined) {
    if (textOf(result.serverInfo) !== textOf(pinned.server_info)) {
      drifted.push({
        tool: 'initialize.serverInfo',
        part: 'serverInfo',
        pinned: jsonDigest(pinned.server_info),
        current: jsonDigest(result.serverInfo ?? null),
      });
    }
    out.serverInfo = pinned.server_info;
  }
  return { result: out, drifted };
}
