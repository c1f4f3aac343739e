/**
 * Calls the gateway asks about instead of Codex: which modes ask for which annotations, the
 * config Codex gets (every mode `approve`, the modes kept for the gateway), the prompt and the
 * refusal texts; and a connection's held calls — released or refused by the queue's answer, a
 * prompt's answer taken from Codex only under an id the gateway made, a cancelled call taken back.
 */
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import {
  asksApproval,
  codexAsks,
  gatewayAsks,
  heldCallPrompt,
  heldCallRefusal,
} from '../../../src/runtime/gateway/call-approvals.js';
import { HeldCalls } from '../../../src/runtime/gateway/held-calls.js';
import type {
  ApprovalAnswer,
  ApprovalAsk,
  AnswerChannel,
  PendingApproval,
} from '../../../src/runtime/protocol/approval-types.js';

const REQUEST: PendingApproval = {
  id: 'a7',
  session: 'S1',
  process: 'root',
  role: 'scout',
  kind: 'mcp_tool_call',
  server: 'fs',
  tool: 'write_file',
  arguments: '{"path":"a\\nb"}',
  requested_at: '2026-12-07T00:00:00.000Z',
  expires_at: '2026-12-07T00:15:00.000Z',
};

describe('which calls are asked about', () => {
  const modes = (defaultMode: 'auto' | 'prompt' | 'writes' | 'approve') => ({
    defaultMode,
    tools: { pinned: 'approve' as const },
    toolTimeoutSec: 300,
  });

  it('follows the mode, then the annotations, asking where they are not known', () => {
    const readOnly = { readOnlyHint: true };
    const destroys = { readOnlyHint: true, destructiveHint: true };
    expect(asksApproval(modes('prompt'), 'x', readOnly)).toBe(true);
    expect(asksApproval(modes('approve'), 'x', undefined)).toBe(false);
    expect(asksApproval(modes('writes'), 'x', readOnly)).toBe(false);
    expect(asksApproval(modes('writes'), 'x', destroys)).toBe(false);
    expect(asksApproval(modes('writes'), 'x', undefined)).toBe(true);
    expect(asksApproval(modes('auto'), 'x', readOnly)).toBe(false);
    expect(asksApproval(modes('auto'), 'x', destroys)).toBe(true);
    expect(asksApproval(modes('auto'), 'x', {})).toBe(true);
    // a tool's own mode wins over the default
    expect(asksApproval(modes('prompt'), 'pinned', undefined)).toBe(false);
    // a tool named like a property of every object has no mode of its own
    for (const tool of ['toString', 'constructor', 'valueOf', '__proto__', 'hasOwnProperty']) {
      expect(asksApproval(modes('prompt'), tool, readOnly), tool).toBe(true);
    }
  });

  it('leaves the asking to Codex where Codex asks about nothing or sets its policy itself', () => {
    expect(codexAsks('approval_policy = "on-request"\n', ['GO'])).toBe(true);
    expect(codexAsks(undefined, ['-m', 'gpt', 'GO'])).toBe(true);
    expect(codexAsks('approval_policy = "never"\n', [])).toBe(false);
    for (const args of [
      ['--dangerously-bypass-approvals-and-sandbox', 'GO'],
      ['--yolo'],
      ['-a', 'never'],
      ['--ask-for-approval=untrusted'],
      ['-c', 'approval_policy="never"'],
      ['--config=approval_policy="on-request"'],
    ]) {
      expect(codexAsks(undefined, args), args.join(' ')).toBe(false);
    }
  });

  it("takes the modes out of Codex's config and role files, leaving every one approve", () => {
    const config = `[mcp_servers.fs]
url = "http://127.0.0.1:1/mcp"
default_tools_approval_mode = "prompt"

[mcp_servers.fs.tools.read_file]
approval_mode = "approve"

[mcp_servers.mmo_mesh]
command = "x"
default_tools_approval_mode = "approve"

[mcp_servers.other]
url = "http://127.0.0.1:1/mcp"
default_tools_approval_mode = "writes"
tool_timeout_sec = 60
`;
    const rendered = {
      files: new Map([
        ['config.toml', config],
        ['agents/scout.toml', '[mcp_servers.fs]\ndefault_tools_approval_mode = "prompt"\n'],
        ['AGENTS.md', 'text'],
      ]),
    };
    const taken = gatewayAsks(rendered as never, ['fs'], 900);
    expect(taken.approvals).toEqual({
      fs: { defaultMode: 'prompt', tools: { read_file: 'approve' }, toolTimeoutSec: 300 },
    });
    const out = parse(taken.rendered.files.get('config.toml') ?? '') as {
      mcp_servers: Record<string, Record<string, unknown>>;
    };
    // Codex's time for the call starts before the person answers: the wait is added to it
    expect(out.mcp_servers.fs).toMatchObject({
      default_tools_approval_mode: 'approve',
      tool_timeout_sec: 300 + 900,
      tools: { read_file: { approval_mode: 'approve' } },
    });
    // servers the gateway does not ask about keep their modes
    expect(out.mcp_servers.other).toMatchObject({
      default_tools_approval_mode: 'writes',
      tool_timeout_sec: 60,
    });
    const own = gatewayAsks(rendered as never, ['other'], 120);
    expect(
      (parse(own.rendered.files.get('config.toml') ?? '') as typeof out).mcp_servers.other,
    ).toMatchObject({ tool_timeout_sec: 180 });
    expect(taken.rendered.files.get('agents/scout.toml')).toContain('"approve"');
    expect(taken.rendered.files.get('AGENTS.md')).toBe('text');
  });

  it('names the role and the way to answer, on lines a model cannot add to', () => {
    const prompt = heldCallPrompt(REQUEST);
    expect(prompt.split('\n')).toHaveLength(3);
    expect(prompt).toContain(
      "codex-mmo approval a7: role scout (in the session's root Codex) asks to call tool 'write_file' of MCP server 'fs'.",
    );
    expect(prompt).toContain("'codex-mmo session approve|deny S1 a7'");
    expect(heldCallPrompt({ ...REQUEST, process: 'worker-1' })).toContain(
      'participant worker-1 (role scout)',
    );
    expect(heldCallRefusal(REQUEST, 'approval-denied', 'not now')).toBe(
      "codex-mmo did not run fs.write_file for role 'scout': a person denied it (reason: not now) [approval-denied]",
    );
    expect(heldCallRefusal(REQUEST, 'approval-expired', undefined)).toContain('[approval-expired]');
  });
});

/** A queue of one request at a time, answered by the test. */
function fakeQueue() {
  const asked: ApprovalAsk[] = [];
  const tui: [string, string][] = [];
  const withdrawn: string[] = [];
  let settle: (answer: ApprovalAnswer) => void = () => undefined;
  const answer = (decision: 'approve' | 'deny', how: AnswerChannel, reason?: string): void => {
    settle({
      id: 'a1',
      decision,
      by: 'me',
      how,
      answered_at: '',
      ...(reason !== undefined ? { reason } : {}),
    });
  };
  const asker = {
    timeoutSec: 900,
    open: (what: ApprovalAsk) => {
      asked.push(what);
      return {
        request: { ...REQUEST, ...what, id: 'a1' },
        answer: new Promise<ApprovalAnswer>((resolve) => {
          settle = resolve;
        }),
      };
    },
    answerFromTui: (id: string, decision: string) => {
      tui.push([id, decision]);
    },
    withdraw: (id: string) => {
      withdrawn.push(id);
      answer('deny', 'withdrawn');
    },
  };
  return { asked, tui, withdrawn, asker, answer };
}

function host() {
  const toCodex: Record<string, unknown>[] = [];
  const released: JSONRPCMessage[] = [];
  const refused: [unknown, string, string][] = [];
  return {
    toCodex,
    released,
    refused,
    host: {
      toCodex: (m: JSONRPCMessage) => toCodex.push(m),
      release: (_id: unknown, m: JSONRPCMessage) => released.push(m),
      refuse: (id: unknown, text: string, reason: string) => refused.push([id, text, reason]),
    },
  };
}

const CALL = {
  jsonrpc: '2.0',
  id: 5,
  method: 'tools/call',
  params: { name: 'write_file' },
} as JSONRPCMessage;
const ASK: ApprovalAsk = {
  process: 'root',
  role: 'scout',
  kind: 'mcp_tool_call',
  server: 'fs',
  tool: 'write_file',
  arguments: '{}',
};
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** Held calls of a route whose every tool asks, with a fake queue and host. */
function promptingCalls() {
  const queue = fakeQueue();
  const out = host();
  const held = new HeldCalls(
    { defaultMode: 'prompt', tools: {}, toolTimeoutSec: 300 },
    queue.asker,
    out.host,
  );
  return { queue, out, held };
}

describe('held calls', () => {
  it('prompts under an id of its own, takes only that answer, and releases an approved call', async () => {
    const queue = fakeQueue();
    const out = host();
    const held = new HeldCalls(
      { defaultMode: 'writes', tools: {}, toolTimeoutSec: 300 },
      queue.asker,
      out.host,
    );
    held.listed({ tools: [{ name: 'read_file', annotations: { readOnlyHint: true } }] });
    expect(held.asks('read_file')).toBe(false);
    expect(held.asks('write_file')).toBe(true);
    held.hold(5, CALL, ASK);
    const prompt = out.toCodex[0] as { id: string; method: string };
    expect(prompt.method).toBe('elicitation/create');
    expect(prompt.id).toMatch(/^mmo-approval-[0-9a-f-]{36}$/);
    // a server's own request id is not taken, however it is named
    expect(held.answered('mmo-approval-a1', { result: { action: 'accept' } })).toBe(false);
    expect(held.answered(prompt.id, { result: { action: 'accept' } })).toBe(true);
    expect(queue.tui).toEqual([['a1', 'approve']]);
    queue.answer('approve', 'tui');
    await settled();
    expect(out.released).toEqual([CALL]);
    expect(out.refused).toEqual([]);
  });

  it('withdraws its prompt when answered elsewhere, and refuses a denied call with the reason', async () => {
    const { queue, out, held } = promptingCalls();
    held.hold(5, CALL, ASK);
    const prompt = out.toCodex[0] as { id: string };
    queue.answer('deny', 'cli', 'not now');
    await settled();
    expect(out.toCodex[1]).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: prompt.id },
    });
    expect(out.refused).toEqual([
      [5, expect.stringContaining('(reason: not now) [approval-denied]'), 'approval-denied'],
    ]);
    // the TUI's late answer is taken and changes nothing
    expect(held.answered(prompt.id, { result: { action: 'accept' } })).toBe(true);
    expect(queue.tui).toEqual([]);
    expect(out.released).toEqual([]);
  });

  it('leaves a cancelled prompt waiting, and takes back the request of a cancelled call', async () => {
    const { queue, out, held } = promptingCalls();
    held.hold(5, CALL, ASK);
    const prompt = out.toCodex[0] as { id: string };
    expect(held.answered(prompt.id, { result: { action: 'cancel' } })).toBe(true);
    expect(queue.tui).toEqual([]);
    held.cancelled(5);
    await settled();
    expect(queue.withdrawn).toEqual(['a1']);
    expect(out.released).toEqual([]);
    expect(out.refused).toEqual([]);
  });
});
