/**
 * Calls a model makes to tools its thread was not offered, turned away before Codex sees them: in
 * the provider's event stream (`text/event-stream`) a `function_call` item naming a Tool MCP
 * server's tool the Codex process has (in the request's own `tools` or tool-search results, or
 * deferred on one of its servers) but the thread's role was not offered (the wire removed it) is renamed so that Codex answers it itself, as an unsupported call naming the
 * tool and the reason; it never runs, is never put to a person for approval, and never reaches a
 * server. A command that asks to leave the sandbox has its approval reason name the role
 * (command-reason). Only whole events are read; anything else passes unchanged.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

import { MESH_SERVER_NAME } from '../protocol/mesh-protocol.js';
import { withRoleReason } from './command-reason.js';
import { callableNames } from './unoffered-calls.js';

/** The reason a turned-away call is given (the gateway's word for the same refusal). */
export const NOT_GRANTED = 'tool-not-granted-to-role' as const;

export interface TurnedAway {
  readonly callId: string;
  /** `namespace` of the call as the model wrote it, if any, and its name. */
  readonly namespace: string | undefined;
  readonly name: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which of a request's calls to turn away: in the process's tools, not in the thread's. */
export interface CallFilter {
  readonly process: ReadonlySet<string>;
  readonly thread: ReadonlySet<string>;
  /** The thread's role, named to the model (undefined: not attributed). */
  readonly role: string | undefined;
  /**
   * True for a call naming a tool of one of the process's servers that the role was not granted,
   * whether or not the request listed it (a deferred tool is listed only once searched for).
   */
  readonly outside?: (namespace: string | undefined, name: string) => boolean;
}

export function callFilter(
  tools: readonly unknown[],
  offered: readonly unknown[],
  role: string | undefined,
  outside?: (namespace: string | undefined, name: string) => boolean,
): CallFilter {
  return {
    process: callableNames(tools),
    thread: callableNames(offered),
    role,
    ...(outside !== undefined ? { outside } : {}),
  };
}

/**
 * Only Tool MCP servers' tools are turned away (the calls Codex may put to a person for
 * approval); `mmo_mesh` and Codex's own functions narrowed by the wire are answered by the mesh
 * and Codex with their own reasons.
 */
function isServerTool(namespace: string | undefined, name: string): boolean {
  const full = namespace !== undefined ? `${namespace}__${name}` : name;
  return full.startsWith('mcp__') && !full.startsWith(`mcp__${MESH_SERVER_NAME}__`);
}

function isTurnedAway(filter: CallFilter, namespace: string | undefined, name: string): boolean {
  if (!isServerTool(namespace, name)) return false;
  const keys = namespace !== undefined ? [`${namespace}.${name}`, `${namespace}__${name}`] : [name];
  if (keys.some((k) => filter.thread.has(k))) return false;
  return keys.some((k) => filter.process.has(k)) || filter.outside?.(namespace, name) === true;
}

/** The item with the call renamed when it is turned away (the same item otherwise). */
function refuseItem(
  item: unknown,
  filter: CallFilter,
  onRefused: (call: TurnedAway) => void,
): unknown {
  if (!isRecord(item) || item.type !== 'function_call' || typeof item.name !== 'string') {
    return item;
  }
  const namespace = typeof item.namespace === 'string' ? item.namespace : undefined;
  if (!isTurnedAway(filter, namespace, item.name)) {
    return withRoleReason(item, filter.role);
  }
  const callId = typeof item.call_id === 'string' ? item.call_id : '';
  onRefused({ callId, namespace, name: item.name });
  const shown = namespace !== undefined ? `${namespace}.${item.name}` : item.name;
  const rest: Record<string, unknown> = { ...item };
  delete rest.namespace;
  const whose = filter.role !== undefined ? `role '${filter.role}'` : 'this thread';
  return { ...rest, name: `${shown} is not granted to ${whose} [${NOT_GRANTED}]` };
}

/**
 * One event's JSON with every turned-away call renamed and every command's reason naming the
 * role (`item`, and `response.output`); `event` itself when nothing changed.
 */
export function refuseInEvent(
  event: unknown,
  filter: CallFilter,
  onRefused: (call: TurnedAway) => void,
): unknown {
  if (!isRecord(event)) return event;
  let out = event;
  if (event.item !== undefined) {
    const item = refuseItem(event.item, filter, onRefused);
    if (item !== event.item) out = { ...out, item };
  }
  const response = event.response;
  if (isRecord(response) && Array.isArray(response.output)) {
    const given = response.output as unknown[];
    const output = given.map((i: unknown) => refuseItem(i, filter, onRefused));
    if (output.some((i, at) => i !== given[at]))
      out = { ...out, response: { ...response, output } };
  }
  return out;
}

/** Rewrites one event block (`event:`/`data:` lines) of a stream; untouched if not JSON data. */
function rewriteBlock(
  block: string,
  filter: CallFilter,
  seen: Set<string>,
  onRefused: (call: TurnedAway) => void,
): string {
  const lines = block.split('\n');
  const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart());
  if (data.length === 0) return block;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.join('\n'));
  } catch {
    return block;
  }
  const found: TurnedAway[] = [];
  const rewritten = refuseInEvent(parsed, filter, (call) => found.push(call));
  if (rewritten === parsed) return block;
  // the same call appears in several events (added, done, completed): reported once
  for (const call of found) {
    if (seen.has(call.callId)) continue;
    seen.add(call.callId);
    onRefused(call);
  }
  const kept = lines.filter((l) => !l.startsWith('data:'));
  return [...kept, `data: ${JSON.stringify(rewritten)}`].join('\n');
}

/** Text with every line end (`\r\n`, `\r` or `\n`, as event streams allow) written `\n`. */
function lineEnds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/**
 * The provider's event stream with turned-away calls renamed. Events are split at blank lines;
 * a partial event waits for the rest. Line ends are normalised to `\n`.
 */
export class RefusingStream extends Transform {
  private pending = '';
  private readonly seen = new Set<string>();
  private readonly decoder = new StringDecoder('utf8');
  private readonly calls: CallFilter;
  private readonly onRefused: (call: TurnedAway) => void;

  constructor(calls: CallFilter, onRefused: (call: TurnedAway) => void) {
    super();
    this.calls = calls;
    this.onRefused = onRefused;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const given = this.pending + this.decoder.write(chunk);
    // a `\r` at the end may be the first half of a `\r\n`: it waits for the next chunk
    const held = given.endsWith('\r') ? '\r' : '';
    const text = lineEnds(held === '' ? given : given.slice(0, -1));
    const end = text.lastIndexOf('\n\n');
    if (end < 0) {
      this.pending = text + held;
      done();
      return;
    }
    this.pending = text.slice(end + 2) + held;
    const blocks = text.slice(0, end).split('\n\n');
    const out = blocks.map((b) => rewriteBlock(b, this.calls, this.seen, this.onRefused));
    done(null, `${out.join('\n\n')}\n\n`);
  }

  override _flush(done: TransformCallback): void {
    const rest = lineEnds(this.pending + this.decoder.end());
    this.pending = '';
    done(null, rest === '' ? undefined : rewriteBlock(rest, this.calls, this.seen, this.onRefused));
  }
}
