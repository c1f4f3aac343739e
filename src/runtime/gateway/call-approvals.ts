/**
 * Tool calls the gateway itself puts to a person (pure): where Codex would have asked in its own
 * TUI — which names no role — the session's interactive root gets its servers with Codex's
 * asking turned off, and the gateway asks instead, after its checks by thread, as the calling
 * role. The rule follows Codex's approval modes; the prompt names the request, the role and the
 * way to answer it from another terminal.
 */
import { parse, stringify } from 'smol-toml';

import type { RenderedHome } from '../../config/compile/types.js';
import type { ApprovalMode } from '../../config/registry/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import { terminalSafe } from '../../foundation/text/terminal-safe.js';
import type { PendingApproval } from '../protocol/approval-types.js';

const MODES: ReadonlySet<unknown> = new Set<ApprovalMode>(['auto', 'prompt', 'writes', 'approve']);

function isApprovalMode(value: unknown): value is ApprovalMode {
  return MODES.has(value);
}

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The approval modes of one route's tools, as the process's config gave them to Codex. */
export interface RouteApprovals {
  /** `default_tools_approval_mode` (Codex's default, `auto`, when the config names none). */
  readonly defaultMode: ApprovalMode;
  /**
   * The server's own `tool_timeout_sec` (Codex's default where it sets none): Codex's is longer by
   * the approval wait, so the gateway times each call it sends on by this.
   */
  readonly toolTimeoutSec: number;
  /** `tools.<name>.approval_mode`, by tool. */
  readonly tools: Readonly<Record<string, ApprovalMode>>;
}

/** Codex's `tool_timeout_sec` where a server sets none (both supported versions). */
export const CODEX_TOOL_TIMEOUT_SEC = 300;

/**
 * Takes Codex's asking about `servers`' tools into the gateway: their approval modes in the
 * rendered config, by server, and the config with every one of them `approve` (Codex asks about
 * none), their tool timeouts longer by `waitSec` (the longest a held call waits for its answer).
 * Role files are set the same way, though Codex takes a native role's modes from the process's
 * config. The caller must hold every call the modes would have asked about.
 */
export function gatewayAsks(
  rendered: RenderedHome,
  servers: readonly string[],
  waitSec: number,
): { rendered: RenderedHome; approvals: Readonly<Record<string, RouteApprovals>> } {
  const approvals: Record<string, RouteApprovals> = {};
  const files = new Map<string, string>();
  for (const [name, text] of rendered.files) {
    if (name !== 'config.toml' && !(name.startsWith('agents/') && name.endsWith('.toml'))) {
      files.set(name, text);
      continue;
    }
    const config = parse(text) as TomlTable;
    const tables = isTable(config.mcp_servers) ? config.mcp_servers : {};
    for (const server of servers) {
      const table = tables[server];
      if (!isTable(table)) continue;
      const tools: Record<string, ApprovalMode> = {};
      const overrides = isTable(table.tools) ? table.tools : {};
      for (const [tool, override] of Object.entries(overrides)) {
        if (!isTable(override)) continue;
        if (isApprovalMode(override.approval_mode)) tools[tool] = override.approval_mode;
        override.approval_mode = 'approve';
      }
      const defaultMode = isApprovalMode(table.default_tools_approval_mode)
        ? table.default_tools_approval_mode
        : 'auto';
      table.default_tools_approval_mode = 'approve';
      // Codex times a call from when it sends it: a held call waits for a person first
      const toolSec =
        typeof table.tool_timeout_sec === 'number'
          ? table.tool_timeout_sec
          : CODEX_TOOL_TIMEOUT_SEC;
      table.tool_timeout_sec = toolSec + waitSec;
      if (name === 'config.toml') {
        approvals[server] = { defaultMode, tools, toolTimeoutSec: toolSec };
      }
    }
    files.set(name, stringify(config));
  }
  return { rendered: { ...rendered, files }, approvals };
}

/** Flags of `codex` that make it ask about nothing, or set its approval policy itself. */
const OWN_POLICY_FLAGS = new Set(['--dangerously-bypass-approvals-and-sandbox', '--yolo']);

/**
 * Whether Codex, as configured (`config.toml`'s text) and started (`args`), asks a person about
 * tool calls at all. Not when its approval policy is `never`, nor when the command line bypasses
 * approvals or sets the policy (`-a`, `--ask-for-approval`, `-c approval_policy=…`): Codex then
 * answers a prompt by itself, so the gateway leaves the asking to Codex's own rules.
 */
export function codexAsks(configText: string | undefined, args: readonly string[]): boolean {
  const config = configText === undefined ? {} : (parse(configText) as TomlTable);
  if (config.approval_policy === 'never') return false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (OWN_POLICY_FLAGS.has(arg)) return false;
    if (arg === '-a' || arg === '--ask-for-approval' || arg.startsWith('--ask-for-approval=')) {
      return false;
    }
    const value = arg === '-c' || arg === '--config' ? args[i + 1] : undefined;
    const inline = arg.startsWith('--config=') ? arg.slice('--config='.length) : value;
    if (inline?.trim().startsWith('approval_policy') === true) return false;
  }
  return true;
}

/** A tool's MCP annotations, as its server listed them (absent: none). */
export interface ToolHints {
  readonly readOnlyHint?: unknown;
  readonly destructiveHint?: unknown;
}

/**
 * Whether a call of `tool` is asked about: `prompt` always, `approve` never, `writes` unless the
 * tool says it only reads, `auto` unless it says it only reads and not that it destroys (Codex
 * 0.149's rule; 0.171 treats `auto` as `writes`, which asks no more often). A tool whose
 * annotations are not known is asked about under `writes` and `auto`.
 */
export function asksApproval(
  approvals: RouteApprovals,
  tool: string,
  hints: ToolHints | undefined,
): boolean {
  // an own entry only: a tool named `toString` or `constructor` finds no object property here
  const mode = Object.hasOwn(approvals.tools, tool)
    ? (approvals.tools[tool] ?? approvals.defaultMode)
    : approvals.defaultMode;
  if (mode === 'prompt') return true;
  if (mode === 'approve') return false;
  const { readOnlyHint, destructiveHint } = hints ?? {};
  if (mode === 'writes') return readOnlyHint !== true;
  return readOnlyHint !== true || destructiveHint === true;
}

/** Who asks, as the prompt names it: a participant, or a role of the session's root Codex. */
function caller(request: PendingApproval): string {
  return request.process === 'root'
    ? `role ${request.role} (in the session's root Codex)`
    : `participant ${request.process} (role ${request.role})`;
}

/** The prompt the person reads for a held call: three terminal-safe lines, masked arguments. */
export function heldCallPrompt(request: PendingApproval): string {
  return [
    `codex-mmo approval ${request.id}: ${caller(request)} asks to call tool '${request.tool ?? '?'}' of MCP server '${request.server ?? '?'}'.`,
    `Arguments: ${request.arguments}`,
    `Allow runs it once, Deny refuses it, Cancel leaves it waiting for 'codex-mmo session approve|deny ${request.session} ${request.id}' (until ${request.expires_at}).`,
  ]
    .map((line) => terminalSafe(line))
    .join('\n');
}

/** What the model reads for a held call that was refused, with the person's reason if any. */
export function heldCallRefusal(
  request: Pick<PendingApproval, 'server' | 'tool' | 'role'>,
  code: 'approval-denied' | 'approval-expired' | 'session-ended',
  reason: string | undefined,
): string {
  const why =
    code === 'approval-expired'
      ? 'nobody answered its approval request in time'
      : code === 'session-ended'
        ? 'the session ended before its approval request was answered'
        : 'a person denied it';
  const said = reason !== undefined && reason !== '' ? ` (reason: ${reason})` : '';
  return `codex-mmo did not run ${request.server ?? '?'}.${request.tool ?? '?'} for role '${request.role}': ${why}${said} [${code}]`;
}
