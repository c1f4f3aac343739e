/**
 * Tells the model why codex-mmo turned a call away after asking (pure). When a person denies a
 * tool call Codex put to the session's queue (or nobody answers in time), Codex gives the model
 * only "user rejected MCP tool call". The next request of that thread repeats the call and that
 * output; the output of the call that matches a recorded denial (same server, tool and
 * arguments, in order) is rewritten to codex-mmo's own text, the person's reason included.
 */
import { modelSafeName } from '../../config/compile/role-grants.js';
import type { DeniedCall } from '../protocol/approval-types.js';

/** What Codex answers the model for a declined MCP tool call (0.149 and 0.171 alike). */
export const CODEX_REJECTED = 'user rejected MCP tool call';

export type { DeniedCall };

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

function argumentsOf(item: Record<string, unknown>): string {
  if (typeof item.arguments !== 'string') return canonical(item.arguments);
  try {
    return canonical(JSON.parse(item.arguments) as unknown);
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

/**
 * `input` with the output of each denied call rewritten (`input` itself when none is): a
 * `function_call_output` saying Codex's text, whose call names a denial's server, tool and
 * arguments. Each denial explains one call, the first that matches.
 */
export function explainDenials(
  input: unknown,
  denials: readonly DeniedCall[],
  target: CallTarget,
): unknown {
  if (denials.length === 0 || !Array.isArray(input)) return input;
  const calls = new Map<string, Record<string, unknown>>();
  for (const item of input) {
    if (isRecord(item) && item.type === 'function_call' && typeof item.call_id === 'string') {
      calls.set(item.call_id, item);
    }
  }
  const used = new Set<number>();
  const out = input.map((item: unknown) => {
    if (!isRecord(item) || item.type !== 'function_call_output' || !rejects(item.output)) {
      return item;
    }
    const call = typeof item.call_id === 'string' ? calls.get(item.call_id) : undefined;
    if (call === undefined || typeof call.name !== 'string') return item;
    const named = target(
      typeof call.namespace === 'string' ? call.namespace : undefined,
      call.name,
    );
    if (named === undefined) return item;
    const args = argumentsOf(call);
    const at = denials.findIndex(
      (d, i) =>
        !used.has(i) &&
        d.server === named.server &&
        (d.tool === named.tool || modelSafeName(d.tool) === named.tool) &&
        canonical(d.params) === args,
    );
    const denial = denials[at];
    if (denial === undefined) return item;
    used.add(at);
    return { ...item, output: replaced(item.output, denial.text) };
  });
  return used.size > 0 ? out : input;
}
