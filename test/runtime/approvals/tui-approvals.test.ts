/**
 * Putting participants' approval requests to the person at the TUI, between a real approval queue
 * and a real MCP client (SDK, in memory) standing for the root Codex: Allow approves and Deny
 * denies (recorded as `tui`), Cancel leaves the request waiting, an answer given elsewhere first
 * withdraws the prompt and the prompt's late answer changes nothing, and the root's own requests
 * are not fed to it. The whole path with real Codex is approvals-tui.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';

import { ApprovalQueue } from '../../../src/runtime/approvals/approval-queue.js';
import type {
  ApprovalAnswer,
  PendingApproval,
} from '../../../src/runtime/protocol/approval-types.js';
import {
  answerFromTui,
  watchFeed,
  type RootApprovalFeed,
} from '../../../src/runtime/approvals/root-approval-feed.js';
import {
  decisionOf,
  elicitationMessage,
  promptApprovals,
  type ApprovalChannel,
} from '../../../src/runtime/approvals/tui-approvals.js';
import type { BrokerPush } from '../../../src/runtime/protocol/mesh-protocol.js';
import { FORGED_LINE, OSC_CLIPBOARD, OSC_TITLE, RAW_CONTROL } from '../../support/hostile-text.js';

/** The broker's two methods, in process: the same feed the broker serves over its socket. */
function channelOf(feed: RootApprovalFeed): ApprovalChannel & { stop: () => void } {
  let stop = (): void => undefined;
  return {
    watchApprovals: (listener: (push: BrokerPush) => void) => {
      stop = watchFeed(feed, {
        requested: (request) => {
          listener({ push: 'approval.requested', request });
        },
        answered: (request) => {
          listener({ push: 'approval.answered', request });
        },
      });
      return Promise.resolve();
    },
    answerApproval: (request, decision) => {
      const result = answerFromTui(feed, request, decision);
      return result.ok ? Promise.resolve(result.answer) : Promise.reject(new Error(result.message));
    },
    stop: () => {
      stop();
    },
  };
}

interface Asked {
  readonly params: ElicitRequest['params'];
  readonly answer: (result: ElicitResult) => void;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A queue, the mesh server feeding it to a client with elicitation, and what the client was asked. */
async function setUp(): Promise<{
  queue: ApprovalQueue;
  asked: Asked[];
  cancelled: unknown[];
}> {
  const queue = new ApprovalQueue({ session: 's1', timeoutSec: 60 });
  const feed = { queue, user: 'alice' };
  const asked: Asked[] = [];
  const cancelled: unknown[] = [];
  const server = new McpServer({ name: 'mmo_mesh', version: '1' });
  const client = new Client({ name: 'root', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(
    ElicitRequestSchema,
    (request, extra) =>
      new Promise<ElicitResult>((resolve) => {
        // a withdrawn prompt reaches the client as a cancellation of its request
        extra.signal.addEventListener('abort', () => cancelled.push(request.params.message));
        asked.push({ params: request.params, answer: resolve });
      }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  // the SDK client ignores a cancellation of request id 0: spend that id on a ping
  await server.server.ping();
  const channel = channelOf(feed);
  await promptApprovals(server.server, channel);
  cleanups.push(async () => {
    channel.stop();
    await queue.close();
    await client.close();
    await server.close();
  });
  return { queue, asked, cancelled };
}

function ask(queue: ApprovalQueue, process = 'worker-1'): Promise<ApprovalAnswer> {
  return queue.ask({
    process,
    role: process === 'root' ? 'lead' : 'worker',
    kind: 'mcp_tool_call',
    server: 'guarded',
    tool: 'write',
    arguments: '{"text":"hello ***"}',
  });
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('participants approvals put to the TUI', () => {
  it('asks with the request text; Allow approves and Deny denies, recorded as the TUI', async () => {
    const { queue, asked } = await setUp();
    const first = ask(queue);
    await until(() => asked.length === 1);
    expect(asked[0]?.params.message).toBe(
      elicitationMessage(queue.pending()[0] as PendingApproval),
    );
    expect(asked[0]?.params.message).toContain(
      "participant worker-1 (role worker) asks to call tool 'write' of MCP server 'guarded'",
    );
    expect(asked[0]?.params.message).toContain('Arguments: {"text":"hello ***"}');
    asked[0]?.answer({ action: 'accept', content: {} });
    expect(await first).toMatchObject({ decision: 'approve', how: 'tui', by: 'alice' });

    const second = ask(queue);
    await until(() => asked.length === 2);
    asked[1]?.answer({ action: 'decline' });
    expect(await second).toMatchObject({ decision: 'deny', how: 'tui', by: 'alice' });
  });

  it('leaves a cancelled prompt waiting in the queue for another answer', async () => {
    const { queue, asked } = await setUp();
    const answer = ask(queue);
    await until(() => asked.length === 1);
    asked[0]?.answer({ action: 'cancel' });
    await new Promise((r) => setTimeout(r, 100));
    expect(queue.pending().map((r) => r.id)).toEqual(['a1']);
    queue.answer('a1', 'approve', 'bob', 'cli');
    expect(await answer).toMatchObject({ decision: 'approve', how: 'cli', by: 'bob' });
  });

  it('withdraws the prompt when answered elsewhere; its late answer changes nothing', async () => {
    const { queue, asked, cancelled } = await setUp();
    const answer = ask(queue);
    await until(() => asked.length === 1);
    expect(queue.answer('a1', 'approve', 'bob', 'cli').ok).toBe(true);
    await until(() => cancelled.length === 1);
    asked[0]?.answer({ action: 'decline' });
    expect(await answer).toMatchObject({ decision: 'approve', how: 'cli' });
    expect(queue.answer('a1', 'deny', 'alice', 'tui')).toMatchObject({
      ok: false,
      reason: 'answered',
    });
  });

  it('feeds requests already pending when it starts, but never the root process own', async () => {
    const queue = new ApprovalQueue({ session: 's1', timeoutSec: 60 });
    const feed = { queue, user: 'alice' };
    void ask(queue, 'root');
    void ask(queue, 'worker-1');
    const fed: string[] = [];
    const stop = watchFeed(feed, { requested: (r) => fed.push(r.id), answered: () => undefined });
    void ask(queue, 'root');
    void ask(queue, 'worker-1');
    expect(fed).toEqual(['a2', 'a4']);
    expect(answerFromTui(feed, 'a1', 'approve')).toMatchObject({ ok: false, reason: 'not-found' });
    expect(queue.pending().map((r) => r.id)).toEqual(['a1', 'a2', 'a3', 'a4']);
    stop();
    void ask(queue, 'worker-1');
    expect(fed).toEqual(['a2', 'a4']);
    await queue.close();
  });

  it('maps elicitation answers to decisions', () => {
    expect(decisionOf({ action: 'accept' })).toBe('approve');
    expect(decisionOf({ action: 'decline' })).toBe('deny');
    expect(decisionOf({ action: 'cancel' })).toBeUndefined();
  });

  it('puts a command and arguments a model wrote as three terminal-safe lines', () => {
    const request: PendingApproval = {
      id: 'a1',
      session: 's1',
      process: 'worker-1',
      role: 'worker',
      kind: 'command',
      tool: `ls${FORGED_LINE}${OSC_TITLE}`,
      arguments: `{"command":"ls"}${OSC_CLIPBOARD}\r\u202eevil`,
      requested_at: '2026-12-01T12:00:00.000Z',
      expires_at: '2026-12-01T12:15:00.000Z',
    };
    const text = elicitationMessage(request);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(text).not.toMatch(RAW_CONTROL);
    expect(lines[0]).toBe(
      'codex-mmo approval a1: participant worker-1 (role worker) asks to run the command ' +
        'ls\\n12:00:02 root (lead) approval a9 approved by root (cli)\\x1b]0;title\\x07.',
    );
    expect(lines[1]).toMatch(/^Arguments: \{"command":"ls"\}\\x1b\]52;c;.*\\x07\\r\\u202eevil$/);
  });
});
