/**
 * The people's side of the approval queue against a live supervision: listing and answering with
 * the session's key (recorded as this process's OS user), a wrong key refused as
 * `approval-caller-refused`, a missing key reported as `approvals-unavailable`, and a listener
 * that is not the recorded supervisor refused as `listener-not-verified` before it gets anything.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
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
import { processStart } from '../../../src/foundation/process/tcp-peer.js';
import { SESSION_FORMAT, type SessionRecord } from '../../../src/runtime/session/session-record.js';
import { startFakeListener } from '../../support/fake-listener.js';
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
    pid_start: processStart(process.pid) ?? '',
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

  it('sends no proof to a listener that is not the supervisor, and names it', async () => {
    const { dir, supervision } = await runningSession();
    // another process of the user replaces the socket and greets like the supervisor
    const fake = await startFakeListener(supervision.socketPath, '{"challenge":"c"}');
    try {
      supervision.queue.ask(ASK).catch(() => undefined);
      const outcome = await answerSessionApproval(dir, 'a1', 'approve');
      expect(outcome).toMatchObject({ ok: false, diagnostic: { code: 'listener-not-verified' } });
      const message = outcome.ok ? '' : outcome.diagnostic.message;
      expect(message).toContain(`held by process ${String(fake.pid)}`);
      const listed = await listSessionApprovals(dir);
      expect(listed.problem?.code).toBe('listener-not-verified');
      // it was connected to, and got not a byte: no request, no nonce, no proof
      expect(fake.accepted()).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fake.received()).toBe('');
      expect(supervision.queue.pending().map((p) => p.id)).toEqual(['a1']);
    } finally {
      await fake.stop();
      await supervision.close();
    }
  });

  it('refuses a record that names no start time for its supervisor', async () => {
    const { dir, supervision } = await runningSession();
    try {
      const record = JSON.parse(await readFile(join(dir, 'session.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      delete record.pid_start;
      await writeFile(join(dir, 'session.json'), JSON.stringify(record));
      const listed = await listSessionApprovals(dir);
      expect(listed.problem?.code).toBe('listener-not-verified');
    } finally {
      await supervision.close();
    }
  });
});
