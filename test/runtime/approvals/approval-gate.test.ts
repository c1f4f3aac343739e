/**
 * The answer policy with the session's gate: a request is the calling thread's role's, one for a
 * tool outside that role's grant is refused before anyone is asked, and a refused or denied tool
 * call is recorded as a call with the role and the reason.
 */
import { describe, expect, it } from 'vitest';

import { approvalGate } from '../../../src/runtime/approvals/approval-gate.js';
import { queuePolicy } from '../../../src/runtime/approvals/approval-policy.js';
import { ApprovalQueue } from '../../../src/runtime/approvals/approval-queue.js';
import type { ServerRequest } from '../../../src/runtime/codex/app-server-protocol.js';
import type { CallRecord } from '../../../src/runtime/gateway/call-record.js';
import type { ResolvedPlan } from '../../../src/config/profile/types.js';

const grant = (tools: string[]) => ({ enabled_tools: tools, disabled_tools: [], required: false });
const plan = {
  roles: {
    lead: { grants: { notes: grant(['read']) } },
    aide: { grants: { guarded: grant(['get-sum']) } },
  },
} as unknown as ResolvedPlan;

const THREADS: Record<string, { process: string; role: string | null }> = {
  'lead-thread': { process: 'root', role: 'lead' },
  'aide-thread': { process: 'root', role: 'aide' },
  'lost-thread': { process: 'root', role: null },
  'other-thread': { process: 'worker-1', role: 'aide' },
};

function request(thread: string, tool: string): ServerRequest {
  return {
    id: 1,
    method: 'mcpServer/elicitation/request',
    params: {
      threadId: thread,
      serverName: 'guarded',
      message: `Allow the guarded MCP server to run tool "${tool}"?`,
      _meta: { codex_approval_kind: 'mcp_tool_call', tool_name: tool, tool_params: {} },
    },
  };
}

function setup() {
  const queue = new ApprovalQueue({ session: 's', timeoutSec: 60 });
  const records: CallRecord[] = [];
  const gate = approvalGate(
    plan,
    (t) => THREADS[t],
    (e) => records.push(e),
  );
  const policy = queuePolicy(queue, { process: 'root', role: 'lead', secrets: [], gate });
  return { queue, records, policy };
}

const summary = (r: CallRecord): string =>
  `${String(r.role)} ${r.server}.${r.tool} ${r.outcome} ${String(r.reason)}`;

describe('queuePolicy with the session gate', () => {
  it("asks with the calling thread's role, and records a denial", async () => {
    const { queue, records, policy } = setup();
    const answer = policy(request('aide-thread', 'get-sum'));
    await Promise.resolve();
    const [pending] = queue.pending();
    expect(pending).toMatchObject({
      process: 'root',
      role: 'aide',
      server: 'guarded',
      tool: 'get-sum',
    });
    queue.answer(pending!.id, 'deny', 'op', 'cli');
    expect(await answer).toBe('decline');
    expect(records.map(summary)).toEqual(['aide guarded.get-sum denied approval-denied']);
  });

  it('accepts a model-safe spelling of a granted tool', async () => {
    const { queue, policy } = setup();
    const answer = policy(request('aide-thread', 'get_sum'));
    await Promise.resolve();
    queue.answer(queue.pending()[0]!.id, 'approve', 'op', 'cli');
    expect(await answer).toBe('accept');
  });

  it("refuses unasked a tool outside the calling role's grant, an unattributed thread and another process's thread", async () => {
    const { queue, records, policy } = setup();
    expect(await policy(request('lead-thread', 'get-sum'))).toBe('decline');
    expect(await policy(request('lost-thread', 'get-sum'))).toBe('decline');
    expect(await policy(request('other-thread', 'get-sum'))).toBe('decline');
    expect(queue.pending()).toEqual([]);
    expect(records.map(summary)).toEqual([
      'lead guarded.get-sum denied tool-not-granted-to-role',
      'null guarded.get-sum denied tool-not-granted-to-role',
      'null guarded.get-sum denied tool-not-granted-to-role',
    ]);
  });

  it('records a request closed by the session ending', async () => {
    const { queue, records, policy } = setup();
    const answer = policy(request('aide-thread', 'get-sum'));
    await Promise.resolve();
    await queue.close();
    expect(await answer).toBe('decline');
    expect(records.map(summary)).toEqual(['aide guarded.get-sum denied session-ended']);
  });

  it("hands the model wire codex-mmo's refusal for the call, masked with every credential", async () => {
    const queue = new ApprovalQueue({ session: 's', timeoutSec: 60 });
    const explained: string[] = [];
    const gate = approvalGate(
      plan,
      (t) => THREADS[t],
      () => undefined,
      (process, thread, denial) =>
        explained.push(`${process} ${thread} ${denial.server}.${denial.tool} ${denial.text}`),
    );
    // the reason names another process's credential, which this process's own list lacks
    const policy = queuePolicy(queue, {
      process: 'root',
      role: 'lead',
      secrets: ['own-secret-1234'],
      mask: (text) => text.replaceAll('worker-secret-5678', '***'),
      gate,
    });
    const answer = policy(request('aide-thread', 'get-sum'));
    await Promise.resolve();
    queue.answer(queue.pending()[0]!.id, 'deny', 'op', 'cli', 'uses worker-secret-5678');
    expect(await answer).toBe('decline');
    // a call outside the role's grant is explained too, without asking anyone
    expect(await policy(request('lead-thread', 'get-sum'))).toBe('decline');
    expect(explained).toEqual([
      "root aide-thread guarded.get-sum codex-mmo did not run guarded.get-sum for role 'aide': a person denied it (reason: uses ***) [approval-denied]",
      "root lead-thread guarded.get-sum codex-mmo did not run guarded.get-sum: it is not granted to role 'lead' [tool-not-granted-to-role]",
    ]);
  });
});
