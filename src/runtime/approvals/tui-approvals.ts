/**
 * The `mmo_mesh` server's side of asking the person at an interactive root's TUI: each
 * participant approval request the broker feeds it becomes an MCP elicitation (`elicitation/create`)
 * to the root Codex, which shows it with Allow/Deny/Cancel. Allow approves, Deny denies, Cancel
 * (or a closed prompt) leaves the request waiting in the queue; an answer given elsewhere first
 * withdraws the prompt, and an answer arriving after it changes nothing. The prompt's text is
 * terminal-safe: a command or arguments a model wrote cannot add a line or a terminal sequence.
 */
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

import { terminalSafe } from '../../foundation/text/terminal-safe.js';
import type { BrokerPush } from '../protocol/mesh-protocol.js';
import type {
  ApprovalAnswer,
  ApprovalDecision,
  PendingApproval,
} from '../protocol/approval-types.js';

/** What the prompts need of the broker connection (a `BrokerClient`). */
export interface ApprovalChannel {
  watchApprovals(listener: (push: BrokerPush) => void): Promise<void>;
  answerApproval(request: string, decision: ApprovalDecision): Promise<ApprovalAnswer>;
}

/** What the prompts need of the MCP server (the SDK server's `elicitInput`). */
export interface ElicitingServer {
  elicitInput(
    params: ElicitRequestFormParams,
    options?: { readonly signal?: AbortSignal; readonly timeout?: number },
  ): Promise<ElicitResult>;
}

/** Longest wait the timers take (ms). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The text the person reads (names and the masked arguments only; pure): three lines, each
 * terminal-safe.
 */
export function elicitationMessage(request: PendingApproval): string {
  const what =
    request.kind === 'mcp_tool_call'
      ? `call tool '${request.tool ?? '?'}' of MCP server '${request.server ?? '?'}'`
      : request.kind === 'command'
        ? `run the command ${request.tool ?? '(unnamed)'}`
        : request.kind === 'file_change'
          ? `change files ${request.tool ?? ''}`.trimEnd()
          : 'get more permissions';
  return [
    `codex-mmo approval ${request.id}: participant ${request.process} (role ${request.role}) asks to ${what}.`,
    `Arguments: ${request.arguments}`,
    `Allow runs it once, Deny refuses it, Cancel leaves it waiting for 'codex-mmo session approve|deny ${request.session} ${request.id}' (until ${request.expires_at}).`,
  ]
    .map((line) => terminalSafe(line))
    .join('\n');
}

/** The decision an elicitation answer gives; `undefined` leaves the request waiting. */
export function decisionOf(result: ElicitResult): ApprovalDecision | undefined {
  if (result.action === 'accept') return 'approve';
  if (result.action === 'decline') return 'deny';
  return undefined;
}

/**
 * Puts every participant request fed over `channel` to the client of `server` (which must have
 * declared the elicitation capability). Resolves once the feed is set up.
 */
export async function promptApprovals(
  server: ElicitingServer,
  channel: ApprovalChannel,
): Promise<void> {
  const open = new Map<string, AbortController>();
  const ask = async (request: PendingApproval): Promise<void> => {
    if (open.has(request.id)) return;
    const controller = new AbortController();
    open.set(request.id, controller);
    const left = Date.parse(request.expires_at) - Date.now();
    try {
      const result = await server.elicitInput(
        {
          mode: 'form',
          message: elicitationMessage(request),
          requestedSchema: { type: 'object', properties: {} },
        },
        { signal: controller.signal, timeout: Math.min(Math.max(left, 1000), MAX_TIMER_MS) },
      );
      const decision = decisionOf(result);
      if (decision !== undefined && !controller.signal.aborted) {
        // answered elsewhere meanwhile: the queue refuses this one, and that is the rule
        await channel.answerApproval(request.id, decision).catch(() => undefined);
      }
    } catch {
      // withdrawn, timed out or the client went away: the request stays with the queue
    } finally {
      open.delete(request.id);
    }
  };
  await channel.watchApprovals((push) => {
    if (push.push === 'approval.requested') void ask(push.request);
    else open.get(push.request)?.abort('answered elsewhere');
  });
}
