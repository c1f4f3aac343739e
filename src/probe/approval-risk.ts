/**
 * Whether Codex asks before calling an MCP tool, from the tool's annotations and the approval mode
 * in force (Codex 0.149 `requires_mcp_tool_approval_for_mode`), and whether that is a risk:
 *
 * - `prompt` always asks; `approve` never asks.
 * - `writes` asks unless `readOnlyHint` is true.
 * - `auto` asks when `destructiveHint` is true; otherwise it does not ask when `readOnlyHint` is
 *   true, nor when `destructiveHint` and `openWorldHint` are both explicitly false; otherwise asks.
 *
 * A tool "may write" unless it is annotated `readOnlyHint: true` without `destructiveHint: true`
 * (no annotations at all counts as may write). The risk is a mode that does not ask for a tool
 * that may write. That leaves: `approve` for every such tool; `writes` for a tool claiming
 * `readOnlyHint: true` and `destructiveHint: true` together; `auto` for a tool that is not
 * read-only but claims `destructiveHint: false` and `openWorldHint: false`; never `prompt`.
 */
import type { ApprovalMode } from '../registry/types.js';

export interface ToolHints {
  readonly readOnlyHint?: unknown;
  readonly destructiveHint?: unknown;
  readonly openWorldHint?: unknown;
}

const HINT_NAMES = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** Whether a tool carries any behaviour hint at all. */
export function isAnnotated(annotations: ToolHints | undefined): boolean {
  if (annotations === undefined) return false;
  const record = annotations as Readonly<Record<string, unknown>>;
  return HINT_NAMES.some((name) => typeof record[name] === 'boolean');
}

/** Whether Codex asks the user before calling a tool with these annotations in this mode. */
export function codexAsksApproval(mode: ApprovalMode, annotations: ToolHints | undefined): boolean {
  const readOnly = annotations?.readOnlyHint === true;
  switch (mode) {
    case 'prompt':
      return true;
    case 'approve':
      return false;
    case 'writes':
      return !readOnly;
    case 'auto': {
      const destructive = annotations?.destructiveHint;
      if (destructive === true) return true;
      if (readOnly) return false;
      const openWorld = annotations?.openWorldHint;
      return destructive !== false || openWorld !== false;
    }
  }
}

/** Whether a tool may change state: anything but a read-only, non-destructive annotation. */
export function mayWrite(annotations: ToolHints | undefined): boolean {
  return !(annotations?.readOnlyHint === true && annotations.destructiveHint !== true);
}

/**
 * Why running this tool in this mode without asking is risky, or `undefined` when it is not (the
 * mode asks, or the tool is annotated read-only and not destructive).
 */
export function approvalRisk(
  mode: ApprovalMode,
  annotations: ToolHints | undefined,
): string | undefined {
  if (codexAsksApproval(mode, annotations) || !mayWrite(annotations)) return undefined;
  if (!isAnnotated(annotations)) {
    return `the server gives the tool no annotations, so nothing says it is read-only, and mode "${mode}" runs it without asking`;
  }
  const hints = describeHints(annotations);
  switch (mode) {
    case 'approve':
      return `mode "approve" never asks, and the tool is not annotated read-only (${hints})`;
    case 'writes':
      return `mode "writes" skips approval because the tool claims readOnlyHint=true, but it also claims destructiveHint=true (${hints})`;
    case 'auto':
      return `mode "auto" skips approval because the tool claims destructiveHint=false and openWorldHint=false, but it is not read-only (${hints})`;
    case 'prompt':
      return undefined;
  }
}

/** `readOnlyHint=false, destructiveHint=true` for the hints a tool sets. */
export function describeHints(annotations: ToolHints | undefined): string {
  if (annotations === undefined) return 'no annotations';
  const record = annotations as Readonly<Record<string, unknown>>;
  const parts = HINT_NAMES.filter((name) => typeof record[name] === 'boolean').map(
    (name) => `${name}=${String(record[name])}`,
  );
  return parts.length === 0 ? 'no behaviour hints' : parts.join(', ');
}
