/**
 * Tells the model why codex-mmo turned a call away after asking (pure). When a person denies a
 * tool call Codex put to the session's queue (or nobody answers in time), Codex gives the model
 * only "user rejected MCP tool call". The next request of that thread repeats the call and that
 * output: the denial is tied to that call (same server, tool and arguments; by call id from then
 * on), and its output is rewritten to codex-mmo's own text, the person's reason included.
 */
import { createHash } from 'node:crypto';

import { modelSafeName } from '../../config/compile/role-grants.js';

/** What Codex answers the model for a declined MCP tool call (0.149 and 0.171 alike). */
export const CODEX_REJECTED = 'user rejected MCP tool call';

/** The server ID and tool a call's name points at (undefined: not a Tool MCP server's). */
export type CallTarget = (
  namespace: string | undefined,
  name: string,
) => { readonly server: string; readonly tool: string } | undefined;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON value with its object keys sorted, so two spellings of one value compare equal. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : isRecord(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort(v[k])]),
          )
        : v;
  return JSON.stringify(sort(value ?? {}));
}

/** A call's arguments as a value (its JSON text parsed; the text itself when it is no JSON). */
function argumentsOf(item: Record<string, unknown>): unknown {
  if (typeof item.arguments !== 'string') return item.arguments;
  try {
    return JSON.parse(item.arguments) as unknown;
  } catch {
    return item.arguments;
  }
}

/** Codex 0.149's content, as JSON text at the end of its output string. */
const REJECTED_JSON = JSON.stringify([{ type: 'text', text: CODEX_REJECTED }]);

/** Whether a content item is Codex's rejection, and nothing else (0.171). */
const isRejection = (part: unknown): boolean => isRecord(part) && part.text === CODEX_REJECTED;

/**
 * Whether `output` is Codex's answer to a declined call, exactly: its text as a whole content
 * item (0.171) or as the whole content at the end of the string (0.149). A server's own output
 * that merely quotes those words is not one.
 */
function rejects(output: unknown): boolean {
  if (typeof output === 'string') {
    return output === CODEX_REJECTED || output.endsWith(`\n${REJECTED_JSON}`);
  }
  return Array.isArray(output) && output.some(isRejection);
}

/** `output` (one that `rejects`) with Codex's text replaced by `text`. */
function replaced(output: unknown, text: string): unknown {
  if (typeof output === 'string') {
    if (output === CODEX_REJECTED) return text;
    const json = JSON.stringify([{ type: 'text', text }]);
    return `${output.slice(0, output.length - REJECTED_JSON.length)}${json}`;
  }
  if (!Array.isArray(output)) return output;
  return (output as unknown[]).map((part) =>
    isRejection(part) ? { ...(part as Record<string, unknown>), text } : part,
  );
}

/** How a call is known to its denial: a digest of its server, model-safe tool name and arguments. */
export function denialKey(server: string, tool: string, params: unknown): string {
  return createHash('sha256')
    .update(`${server}\u0000${modelSafeName(tool)}\u0000${canonical(params)}`)
    .digest('base64');
}

/** A denial not yet tied to the call it explains. */
export interface PendingDenial {
  readonly key: string;
  readonly text: string;
}

/** One thread's denials: those tied to a call (by call id), and those waiting for theirs. */
export interface DenialState {
  readonly bound: ReadonlyMap<string, string>;
  readonly pending: readonly PendingDenial[];
}

export interface Explained {
  /** `input` with the outputs rewritten (`input` itself when none is). */
  readonly input: unknown;
  /** Pending denials tied to a call by this request: call id → text. */
  readonly bound: ReadonlyMap<string, string>;
  /** The indexes of the pending denials this request tied. */
  readonly used: ReadonlySet<number>;
}

/**
 * Rewrites the output of each denied call of `input` (pure): a `function_call_output` that is
 * Codex's exact rejection, of a call already tied to a denial, or else of the latest untied call
 * whose server, tool and arguments a pending denial names (a denial is recorded just before the
 * request that carries its call's rejection, so that call is the newest of its kind).
 */
export function explainDenials(input: unknown, state: DenialState, target: CallTarget): Explained {
  const none: Explained = { input, bound: new Map(), used: new Set() };
  if ((state.bound.size === 0 && state.pending.length === 0) || !Array.isArray(input)) return none;
  const items = input as unknown[];
  const calls = new Map<string, Record<string, unknown>>();
  const rejected: string[] = [];
  for (const item of items) {
    if (!isRecord(item) || typeof item.call_id !== 'string') continue;
    if (item.type === 'function_call') calls.set(item.call_id, item);
    else if (item.type === 'function_call_output' && rejects(item.output))
      rejected.push(item.call_id);
  }
  const bound = new Map<string, string>();
  const used = new Set<number>();
  // the newest untied rejections take the newest pending denials of their kind
  for (const callId of rejected.reverse()) {
    if (state.bound.has(callId) || bound.has(callId) || used.size === state.pending.length)
      continue;
    const call = calls.get(callId);
    if (call === undefined || typeof call.name !== 'string') continue;
    const named = target(
      typeof call.namespace === 'string' ? call.namespace : undefined,
      call.name,
    );
    if (named === undefined) continue;
    const key = denialKey(named.server, named.tool, argumentsOf(call));
    for (let at = state.pending.length - 1; at >= 0; at--) {
      const pending = state.pending[at];
      if (used.has(at) || pending?.key !== key) continue;
      used.add(at);
      bound.set(callId, pending.text);
      break;
    }
  }
  const textOf = (callId: unknown): string | undefined =>
    typeof callId === 'string' ? (state.bound.get(callId) ?? bound.get(callId)) : undefined;
  let changed = 0;
  const out = items.map((item) => {
    if (!isRecord(item) || item.type !== 'function_call_output' || !rejects(item.output)) {
      return item;
    }
    const text = textOf(item.call_id);
    if (text === undefined) return item;
    changed++;
    return { ...item, output: replaced(item.output, text) };
  });
  return { input: changed > 0 ? out : input, bound, used };
}
