/**
 * The people's side of the approval queue against a live supervision: listing and answering with
 * the session's key (recorded as this process's OS user), a wrong key refused as
 * `approval-caller-refused`, and a missing key reported as `approvals-unavailable`.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { approvalKeyPath } from '../../../src/runtime/approvals/approval-auth.js';
import type { ApprovalAsk } from '../../../src/runtime/protocol/approval-types.js';
import {
  answerSessionApproval,
  listSessionApprovals,
} from '../../../src/runtime/approvals/session-approvals.js';
import { SessionSupervision } from '../../../src/runtime/approvals/session-supervision.js';
import { userOfUid } from '../../../src/foundation/process/unix-peer.js';
import { SESSION_FORMAT, type SessionRecord } from '../../../src/runtime/session/session-record.js';
import { tmpDir } from '../../support/tmp.js';

const ASK: ApprovalAsk = {
  process: 'worker-1',
  role: 'worker',
  kind: 'mcp_tool_call',
  server: 'files',
  tool: 'write',
  arguments: '{}',
};

async function runningSession(): Promise<{ dir: string; supervision: SessionSupervision }> {
  const dir = await tmpDir('codex-mmo-answers-');
  const supervision = await SessionSupervision.start({
    session: 's1',
    dir,
    socketPath: join(dir, 'approvals.sock'),
    timeoutSec: 60,
    secrets: [],
  });
  const record: SessionRecord = {
    format: SESSION_FORMAT,
    id: 's1',
    profile: 'p',
    snapshot: 'sha256:0',
    mode: 'exec',
    cwd: dir,
    started: new Date().toISOString(),
    status: 'running',
    pid: process.pid,
    mesh_socket: join(dir, 'mesh.sock'),
    approvals_socket: supervision.socketPath,
    processes: [],
  };
  await writeFile(join(dir, 'session.json'), JSON.stringify(record));
  return { dir, supervision };
}

describe('session approvals from a terminal', () => {
  it('lists and answers with the key, recorded as this OS user', async () => {
    const { dir, supervision } = await runningSession();
    try {
      const asked = supervision.queue.ask(ASK);
      const listed = await listSessionApprovals(dir);
      expect(listed.problem).toBeUndefined();
      expect(listed.approvals.map((a) => a.id)).toEqual(['a1']);
      const outcome = await answerSessionApproval(dir, 'a1', 'approve');
      expect(outcome).toMatchObject({ ok: true, answer: { how: 'cli' } });
      expect(await asked).toMatchObject({ by: await userOfUid(process.getuid?.() ?? -1) });
    } finally {
      await supervision.close();
    }
  });

  it('is refused with a wrong key and unavailable without one', async () => {
    const { dir, supervision } = await runningSession();
    try {
      supervision.queue.ask(ASK).catch(() => undefined);
      await writeFile(approvalKeyPath(dir), randomBytes(32).toString('base64url'));
      const wrong = await answerSessionApproval(dir, 'a1', 'approve');
      expect(wrong).toMatchObject({ ok: false, diagnostic: { code: 'approval-caller-refused' } });
      const listed = await listSessionApprovals(dir);
      expect(listed.problem?.code).toBe('approval-caller-refused');
      await writeFile(approvalKeyPath(dir), '');
      const none = await answerSessionApproval(dir, 'a1', 'approve');
      expect(none).toMatchObject({ ok: false, diagnostic: { code: 'approvals-unavailable' } });
      expect(supervision.queue.pending().map((p) => p.id)).toEqual(['a1']);
    } finally {
      await supervision.close();
    }
  });
});
