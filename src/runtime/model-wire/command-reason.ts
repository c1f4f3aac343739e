/**
 * A command's approval question names the calling role (pure). Codex shows a `function_call` of
 * `exec_command` that asks to run outside the sandbox (`sandbox_permissions:
 * "require_escalated"`) to a person with its `justification` as the reason, and names only the
 * thread ("Thread: Agent (…)"; both versions, measured). The wire puts the thread's role in front
 * of that reason, so a native role's question says whose it is.
 */

/** Codex's command functions whose arguments carry `sandbox_permissions` and `justification`. */
const COMMAND_FUNCTIONS: ReadonlySet<string> = new Set(['exec_command', 'shell_command', 'shell']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reason shown for `role`'s request, its own words (if any) after the role. */
export function roleReason(role: string, justification: string | undefined): string {
  const own = justification?.trim() ?? '';
  return own === ''
    ? `Role '${role}' asks to run this command outside the sandbox.`
    : `Role '${role}' asks: ${own}`;
}

/**
 * `item` with its reason naming `role` when it is a command call that asks to leave the sandbox
 * or gives a reason; `item` itself otherwise (and for arguments that are not a JSON object).
 */
export function withRoleReason(item: unknown, role: string): unknown {
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
  if (!escalated && own === undefined) return item;
  // a reason the wire named already (a model may repeat one from its history) is kept
  if (own?.trim().startsWith(`Role '${role}' asks`) === true) return item;
  const reason = roleReason(role, own);
  return { ...item, arguments: JSON.stringify({ ...args, justification: reason }) };
}
