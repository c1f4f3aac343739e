/**
 * A command's approval question names the calling role (pure). Codex shows a `function_call` of
 * `exec_command` that asks to run outside the sandbox (`sandbox_permissions:
 * "require_escalated"`) to a person with its `justification` as the reason, and names only the
 * thread ("Thread: Agent (…)"; both versions, measured). The wire puts the thread's role (or that
 * it has none) in front of that reason, whatever the model wrote there, with the model's words
 * cut short and their control and direction characters shown as escapes; no other argument's
 * text changes.
 */
import { terminalSafe } from '../../foundation/text/terminal-safe.js';
import { setJsonMember } from '../../foundation/text/json-member.js';

/** Codex's command functions whose arguments carry `sandbox_permissions` and `justification`. */
const COMMAND_FUNCTIONS: ReadonlySet<string> = new Set(['exec_command', 'shell_command', 'shell']);

/** How much of the model's own reason is shown. */
const OWN_WORDS_MAX = 300;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reason shown for a request of `role` (undefined: a thread no role was found for). */
export function roleReason(role: string | undefined, justification: string | undefined): string {
  const who = role !== undefined ? `Role '${role}'` : 'A thread of no known role';
  const own = terminalSafe(justification?.trim() ?? '');
  if (own === '') return `${who} asks to run this command outside the sandbox.`;
  return `${who} asks: ${own.length > OWN_WORDS_MAX ? `${own.slice(0, OWN_WORDS_MAX)}…` : own}`;
}

/**
 * `item` with its reason naming `role` when it is a command call that asks to leave the sandbox
 * or gives a reason; `item` itself otherwise (and for arguments that are not a JSON object).
 */
export function withRoleReason(item: unknown, role: string | undefined): unknown {
  if (!isRecord(item) || item.type !== 'function_call' || typeof item.name !== 'string') {
    return item;
  }
  if (item.namespace !== undefined || !COMMAND_FUNCTIONS.has(item.name)) return item;
  if (typeof item.arguments !== 'string') return item;
  let args: unknown;
  try {
    args = JSON.parse(item.arguments);
  } catch {
    return item;
  }
  if (!isRecord(args)) return item;
  const own = typeof args.justification === 'string' ? args.justification : undefined;
  const escalated =
    args.sandbox_permissions !== undefined && args.sandbox_permissions !== 'use_default';
  if (!escalated && args.justification === undefined) return item;
  const text = setJsonMember(item.arguments, 'justification', roleReason(role, own));
  return text === undefined ? item : { ...item, arguments: text };
}
