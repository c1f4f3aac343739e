/**
 * The approval queue on its own: ids, expiry, answered at most once, timeouts, denial of what is
 * pending on close, the records it appends to approvals.jsonl; and the request descriptions
 * (masked arguments). The socket in front of it is tested in approval-socket.test.ts.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ApprovalQueue } from '../../../src/runtime/approvals/approval-queue.js';
import type { ApprovalAsk } from '../../../src/runtime/protocol/approval-types.js';
import { describeApprovalRequest } from '../../../src/runtime/approvals/describe-request.js';
import { tmpDir } from '../../support/tmp.js';

const ASK: ApprovalAsk = {
  process: 'worker-1',
  role: 'worker',
  kind: 'mcp_tool_call',
  server: 'files',
  tool: 'write',
  arguments: '{"text":"x"}',
};

async function lines(file: string): Promise<Record<string, unknown>[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('ApprovalQueue', () => {
  it('answers a request at most once and records both', async () => {
    const dir = await tmpDir('codex-mmo-queue-');
    const queue = new ApprovalQueue({ session: 's1', dir, timeoutSec: 60 });
    const answered = queue.ask(ASK);
    const [pending] = queue.pending();
    expect(pending).toMatchObject({ id: 'a1', session: 's1', ...ASK });
    expect(Date.parse(pending?.expires_at ?? '') - Date.parse(pending?.requested_at ?? '')).toBe(
      60_000,
    );
    const first = queue.answer('a1', 'approve', 'alice', 'cli');
    expect(first.ok).toBe(true);
    const second = queue.answer('a1', 'deny', 'bob', 'cli');
    expect(second).toMatchObject({ ok: false, reason: 'answered' });
    expect(second.ok ? '' : second.message).toContain('approved by alice via cli');
    expect(queue.answer('a9', 'approve', 'alice', 'cli')).toMatchObject({
      ok: false,
      reason: 'not-found',
    });
    expect(await answered).toMatchObject({ decision: 'approve', by: 'alice', how: 'cli' });
    expect(queue.pending()).toEqual([]);
    await queue.flushed();
    const records = await lines(join(dir, 'approvals.jsonl'));
    expect(records.map((r) => [r.type, r.id])).toEqual([
      ['requested', 'a1'],
      ['answered', 'a1'],
    ]);
    expect((await stat(join(dir, 'approvals.jsonl'))).mode & 0o777).toBe(0o600);
  });

  it('denies a request when its time is up', async () => {
    const queue = new ApprovalQueue({ session: 's1', timeoutSec: 0.05 });
    const answer = await queue.ask(ASK);
    expect(answer).toMatchObject({ decision: 'deny', how: 'timeout', by: 'codex-mmo' });
  });

  it('denies everything pending on close, and every later request at once', async () => {
    const queue = new ApprovalQueue({ session: 's1', timeoutSec: 60 });
    const a = queue.ask(ASK);
    const b = queue.ask({ ...ASK, tool: 'other' });
    await queue.close('the session ended');
    expect(await a).toMatchObject({ decision: 'deny', how: 'session-ended' });
    expect(await b).toMatchObject({ decision: 'deny', how: 'session-ended' });
    expect(await queue.ask(ASK)).toMatchObject({ decision: 'deny', how: 'session-ended' });
    expect(queue.pending()).toEqual([]);
  });
});

describe('describeApprovalRequest', () => {
  const secret = 'tok-secret-1234';
  it('describes an MCP tool approval of either version with masked arguments', () => {
    const v171 = describeApprovalRequest(
      {
        id: 1,
        method: 'mcpServer/elicitation/request',
        params: {
          threadId: 't1',
          serverName: 'files',
          message: `Allow the files server to run tool "write"?`,
          _meta: {
            codex_approval_kind: 'mcp_tool_call',
            tool_name: 'write',
            tool_params: { text: `key ${secret}` },
          },
        },
      },
      [secret],
    );
    expect(v171).toMatchObject({
      kind: 'mcp_tool_call',
      thread: 't1',
      server: 'files',
      tool: 'write',
    });
    expect(v171?.arguments).toBe('{"text":"key ***"}');
    // 0.149 names the tool only in its message
    const v149 = describeApprovalRequest(
      {
        id: 2,
        method: 'mcpServer/elicitation/request',
        params: {
          serverName: 'files',
          message: 'Allow the files MCP server to run tool "edit_file"?',
          _meta: { codex_approval_kind: 'mcp_tool_call', tool_params: {} },
        },
      },
      [],
    );
    expect(v149?.tool).toBe('edit_file');
  });

  it('describes commands and leaves other requests out of the queue', () => {
    expect(
      describeApprovalRequest(
        {
          id: 3,
          method: 'item/commandExecution/requestApproval',
          params: { threadId: 't', command: `curl -H ${secret}`, cwd: '/w' },
        },
        [secret],
      ),
    ).toMatchObject({ kind: 'command', tool: 'curl -H ***' });
    expect(
      describeApprovalRequest(
        {
          id: 4,
          method: 'mcpServer/elicitation/request',
          params: { serverName: 'x', message: 'your name?', _meta: null },
        },
        [],
      ),
    ).toBeUndefined();
    expect(
      describeApprovalRequest({ id: 5, method: 'item/tool/requestUserInput', params: {} }, []),
    ).toBeUndefined();
  });

  it('names the files of a file change, the first eight of many', () => {
    const files = Array.from({ length: 10 }, (_, i) => `/w/f${String(i)}.txt`);
    const described = describeApprovalRequest(
      {
        id: 6,
        method: 'item/fileChange/requestApproval',
        params: {
          itemId: 'i1',
          fileChanges: Object.fromEntries(files.map((f) => [f, { kind: 'add' }])),
        },
      },
      [],
    );
    expect(described?.kind).toBe('file_change');
    expect(described?.tool).toBe(`${files.slice(0, 8).join(', ')} and 2 more`);
    expect(JSON.parse(described?.arguments ?? '{}')).toMatchObject({ files });
  });
});
