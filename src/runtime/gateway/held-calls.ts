/**
 * A connection's tool calls held for a person's answer (see `call-approvals.ts`): each goes to the
 * session's approval queue as the calling role's request, and to Codex as an MCP elicitation
 * (`elicitation/create`, on the same MCP session), which its TUI shows with the role named. The
 * queue's answer — from the TUI's prompt, `session approve|deny` or the timeout, whichever is
 * first — releases the call to the server or refuses it. Cancel at the TUI leaves it waiting.
 */
import { randomUUID } from 'node:crypto';

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import type {
  ApprovalAnswer,
  ApprovalAsk,
  ApprovalDecision,
  PendingApproval,
} from '../protocol/approval-types.js';
import {
  asksApproval,
  heldCallPrompt,
  heldCallRefusal,
  type RouteApprovals,
  type ToolHints,
} from './call-approvals.js';
import { denialReason, type CallReason } from './call-record.js';
import { isObject, type Id } from './relay-messages.js';

/** The session's approval queue, as the gateway uses it. */
export interface CallAsker {
  /** The longest a request waits for its answer (seconds). */
  readonly timeoutSec: number;
  open(what: ApprovalAsk): { request: PendingApproval; answer: Promise<ApprovalAnswer> };
  /** The person's answer at the TUI (the queue keeps the first answer of all). */
  answerFromTui(id: string, decision: ApprovalDecision): void;
  /** Takes back a request whose call was cancelled or whose connection ended. */
  withdraw(id: string, reason: string): void;
}

/** What the holding connection does with a call once it is answered. */
export interface HeldCallHost {
  /** Writes a message to Codex. */
  toCodex(message: JSONRPCMessage): void;
  /** Sends the call on to the server, checked again: a tool may have drifted meanwhile. */
  release(id: Id, out: JSONRPCMessage): void;
  /** Answers the call as a tool error and records it refused. */
  refuse(id: Id, text: string, reason: CallReason): void;
}

export class HeldCalls {
  /** Each listed tool's annotations. */
  private readonly hints = new Map<string, ToolHints>();
  /** Prompts at the TUI not answered there yet: elicitation id → approval id. */
  private readonly prompts = new Map<string, string>();
  /** Calls waiting for their answer: request id of the call → approval id. */
  private readonly waiting = new Map<Id, string>();
  /**
   * Every prompt id sent: a late answer to a withdrawn one is taken here too. Ids are random, so
   * no server's own request to Codex can take the place of a prompt.
   */
  private readonly sent = new Set<string>();

  constructor(
    private readonly approvals: RouteApprovals,
    private readonly asker: CallAsker,
    private readonly host: HeldCallHost,
  ) {}

  /** Keeps the annotations of the tools of a `tools/list` answer Codex gets. */
  listed(result: unknown): void {
    const tools = isObject(result) && Array.isArray(result.tools) ? result.tools : [];
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool.name !== 'string') continue;
      this.hints.set(tool.name, isObject(tool.annotations) ? tool.annotations : {});
    }
  }

  /** Whether a call with request id `id` is waiting for its answer. */
  holds(id: Id): boolean {
    return this.waiting.has(id);
  }

  /** Whether a call of `tool` waits for a person. */
  asks(tool: string): boolean {
    return asksApproval(this.approvals, tool, this.hints.get(tool));
  }

  /** Holds the admitted call `out` (request `id`) until the queue answers `ask`. */
  hold(id: Id, out: JSONRPCMessage, ask: ApprovalAsk): void {
    const { request, answer } = this.asker.open(ask);
    const prompt = `mmo-approval-${randomUUID()}`;
    this.prompts.set(prompt, request.id);
    this.sent.add(prompt);
    this.host.toCodex({
      jsonrpc: '2.0',
      id: prompt,
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: heldCallPrompt(request),
        requestedSchema: { type: 'object', properties: {} },
      },
    });
    this.waiting.set(id, request.id);
    void answer.then((given) => {
      this.waiting.delete(id);
      // answered elsewhere: the prompt is withdrawn (a TUI that keeps it changes nothing)
      if (this.prompts.delete(prompt)) {
        this.host.toCodex({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: prompt, reason: 'answered elsewhere' },
        });
      }
      // a call taken back has its end already (cancelled, or nobody left to answer)
      if (given.how === 'withdrawn') return;
      if (given.decision === 'approve') {
        this.host.release(id, out);
        return;
      }
      const code = denialReason(given.how);
      if (code === 'cancelled') return;
      const reason = given.how === 'cli' || given.how === 'tui' ? given.reason : undefined;
      this.host.refuse(id, heldCallRefusal(request, code, reason), code);
    });
  }

  /** Codex cancelled call `id`: a request still waiting for it is taken back. */
  cancelled(id: Id): void {
    const request = this.waiting.get(id);
    if (request !== undefined) this.asker.withdraw(request, 'the call was cancelled');
  }

  /** The connection ended: every request still waiting is taken back. */
  close(): void {
    for (const request of [...this.waiting.values()]) {
      this.asker.withdraw(request, 'the connection to the server ended');
    }
  }

  /** Codex's answer to one of the prompts (true: it was one, and is taken here). */
  answered(id: Id, message: Record<string, unknown>): boolean {
    if (typeof id !== 'string' || !this.sent.has(id)) return false;
    const request = this.prompts.get(id);
    if (request === undefined) return true;
    this.prompts.delete(id);
    const action = isObject(message.result) ? message.result.action : undefined;
    // Cancel, an error or no form leaves the request waiting for another answer
    if (action === 'accept') this.asker.answerFromTui(request, 'approve');
    else if (action === 'decline') this.asker.answerFromTui(request, 'deny');
    return true;
  }
}
