/**
 * Whether Codex asks before calling an MCP tool, from the tool's annotations, the approval mode in
 * force and the Codex version (its row in the version table: `approvalModeAsks`), and whether
 * that is a risk. A tool "may write" unless it is annotated `readOnlyHint: true` without
 * `destructiveHint: true` (no annotations at all counts as may write). The risk is a mode that
 * does not ask for a tool that may write: `approve` for every such tool; `writes` (and `auto` on
 * Codex 0.171) for a tool claiming `readOnlyHint: true` and `destructiveHint: true` together;
 * `auto` for a tool that is not read-only but claims `destructiveHint: false` and
 * `openWorldHint: false`; never `prompt`.
 */
import {
  NEWEST_CODEX,
  approvalModeAsks,
  type CodexVersionFacts,
} from '../../config/codex/codex-versions.js';
import type { ApprovalMode } from '../../config/registry/types.js';

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

/**
 * Whether Codex asks the user before calling a tool with these annotations in this mode, on the
 * given Codex version (default: the newest supported).
 */
export function codexAsksApproval(
  mode: ApprovalMode,
  annotations: ToolHints | undefined,
  codex: CodexVersionFacts = NEWEST_CODEX,
): boolean {
  return approvalModeAsks(codex, mode, annotations);
}

/** Whether a tool may change state: anything but a read-only, non-destructive annotation. */
export function mayWrite(annotations: ToolHints | undefined): boolean {
  return !(annotations?.readOnlyHint === true && annotations.destructiveHint !== true);
}

/**
 * Why running this tool in this mode without asking is risky on the given Codex version (default:
 * the newest supported), or `undefined` when it is not (the mode asks, or the tool is annotated
 * read-only and not destructive).
 */
export function approvalRisk(
  mode: ApprovalMode,
  annotations: ToolHints | undefined,
  codex: CodexVersionFacts = NEWEST_CODEX,
): string | undefined {
  if (codexAsksApproval(mode, annotations, codex) || !mayWrite(annotations)) return undefined;
  const on = `on Codex ${codex.series}`;
  if (!isAnnotated(annotations)) {
    return `the server gives the tool no annotations, so nothing says it is read-only, and mode "${mode}" runs it without asking ${on}`;
  }
  const hints = describeHints(annotations);
  switch (mode) {
    case 'approve':
      return `mode "approve" never asks, and the tool is not annotated read-only (${hints})`;
    case 'writes':
    case 'auto':
      if (annotations?.readOnlyHint === true) {
        return `mode "${mode}" ${on} skips approval because the tool claims readOnlyHint=true, but it also claims destructiveHint=true (${hints})`;
      }
      return `mode "${mode}" ${on} skips approval because the tool claims destructiveHint=false and openWorldHint=false, but it is not read-only (${hints})`;
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
