/**
 * The approval socket's handshake: a caller proves the session's approval key over the server's
 * challenge, or is refused and recorded; the answerer is the connection's peer, never the
 * message's `user`; a captured exchange cannot be replayed; a caller in another PID namespace is
 * refused; the client rejects a server that cannot prove the key; and the supervision writes the
 * key 0600, records refusals without secrets, and removes the key when the session ends.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { approvalKeyPath, requestProof } from '../../../src/runtime/approvals/approval-auth.js';
import { askSupervisor } from '../../../src/runtime/approvals/approval-client.js';
import { thisProcess } from '../../../src/foundation/process/socket-listener.js';
import { ApprovalQueue } from '../../../src/runtime/approvals/approval-queue.js';
import {
  ApprovalSocket,
  type ApprovalSocketOptions,
  type Refusal,
} from '../../../src/runtime/approvals/approval-socket.js';
import type { ApprovalAsk } from '../../../src/runtime/protocol/approval-types.js';
import { SessionSupervision } from '../../../src/runtime/approvals/session-supervision.js';
import { userOfUid } from '../../../src/foundation/process/unix-peer.js';
import { tmpDir } from '../../support/tmp.js';

const ASK: ApprovalAsk = {
  process: 'worker-1',
  role: 'worker',
  kind: 'mcp_tool_call',
  server: 'files',
  tool: 'write',
  arguments: '{"text":"x"}',
};

/** A raw connection: the server's first line, then `lines` sent, then what came back. */
async function raw(path: string, lines: (challenge: string) => unknown[]): Promise<string[]> {
  const socket: Socket = createConnection(path);
  let text = '';
  let sent = false;
  return new Promise((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      text += d.toString();
      if (!sent && text.includes('\n')) {
        sent = true;
        const challenge = (JSON.parse(text.split('\n')[0] ?? '{}') as { challenge: string })
          .challenge;
        for (const line of lines(challenge)) socket.write(`${JSON.stringify(line)}\n`);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      resolve(text.split('\n').filter((l) => l !== ''));
    });
  });
}

async function started(
  options: { peerOf?: ApprovalSocketOptions['peerOf'] } = {},
): Promise<{ queue: ApprovalQueue; socket: ApprovalSocket; key: Buffer; refused: Refusal[] }> {
  const dir = await tmpDir('codex-mmo-sock-');
  const queue = new ApprovalQueue({ session: 's1', timeoutSec: 60 });
  const key = randomBytes(32);
  const refused: Refusal[] = [];
  const socket = await ApprovalSocket.listen(queue, join(dir, 'approvals.sock'), {
    key,
    owner: 'owner-fallback',
    onRefused: (r) => refused.push(r),
    ...(options.peerOf !== undefined ? { peerOf: options.peerOf } : {}),
  });
  return { queue, socket, key, refused };
}

describe('the approval socket', () => {
  it('answers a caller that proves the key, recording the peer’s OS user, not the message’s', async () => {
    const { queue, socket, key } = await started();
    try {
      expect((await stat(socket.path)).mode & 0o777).toBe(0o600);
      const answer = queue.ask(ASK);
      const listed = await askSupervisor(socket.path, thisProcess(), key, { method: 'list' });
      expect('approvals' in listed && listed.approvals.map((a) => a.id)).toEqual(['a1']);
      const forged = {
        method: 'answer',
        request: 'a1',
        decision: 'deny',
        reason: 'no',
        user: 'operator',
      } as const;
      const reply = await askSupervisor(socket.path, thisProcess(), key, forged);
      const me = await userOfUid(process.getuid?.() ?? -1);
      expect(reply).toMatchObject({ answer: { decision: 'deny', by: me, reason: 'no' } });
      expect(me).not.toBe('operator');
      expect(await answer).toMatchObject({ decision: 'deny', how: 'cli', by: me });
      const again = await askSupervisor(socket.path, thisProcess(), key, {
        method: 'answer',
        request: 'a1',
        decision: 'approve',
      });
      expect(again).toMatchObject({ error: { code: 'answered' } });
      const bad = await askSupervisor(socket.path, thisProcess(), key, { method: 'nope' } as never);
      expect(bad).toMatchObject({ error: { code: 'invalid' } });
    } finally {
      await socket.close();
    }
    await expect(
      askSupervisor(socket.path, thisProcess(), key, { method: 'list' }),
    ).rejects.toThrow(/cannot reach/);
  });

  it('refuses and reports a caller without the key, with a wrong key, or replaying an exchange', async () => {
    const { queue, socket, key, refused } = await started();
    try {
      void queue.ask(ASK);
      // the old protocol: a bare request, with a forged user
      const bare = await raw(socket.path, () => [
        { method: 'answer', request: 'a1', decision: 'approve', user: 'operator' },
      ]);
      expect(bare.at(-1)).toContain('"unauthenticated"');
      const wrong = await askSupervisor(socket.path, thisProcess(), randomBytes(32), {
        method: 'answer',
        request: 'a1',
        decision: 'approve',
      });
      expect(wrong).toMatchObject({ error: { code: 'unauthenticated' } });

      // a proven exchange on one connection, replayed word for word on another
      const body = JSON.stringify({ method: 'answer', request: 'a1', decision: 'approve' });
      let captured: unknown;
      const first = await raw(socket.path, (challenge) => {
        captured = { body, nonce: 'n1', proof: requestProof(key, challenge, 'n1', body) };
        return [{ body: JSON.stringify({ method: 'list' }), nonce: 'n1', proof: 'x' }];
      });
      expect(first.at(-1)).toContain('"unauthenticated"');
      const replayed = await raw(socket.path, () => [captured]);
      expect(replayed.at(-1)).toContain('"unauthenticated"');
      // a second request on a proven connection is not answered either
      const twice = await raw(socket.path, (challenge) => [
        {
          body: JSON.stringify({ method: 'list' }),
          nonce: 'n2',
          proof: requestProof(key, challenge, 'n2', JSON.stringify({ method: 'list' })),
        },
        { body, nonce: 'n2', proof: requestProof(key, challenge, 'n2', body) },
      ]);
      expect(twice).toHaveLength(2);

      expect(queue.pending().map((p) => p.id)).toEqual(['a1']);
      expect(refused.map((r) => [r.code, r.method, r.decision])).toEqual([
        ['unauthenticated', 'answer', 'approve'],
        ['unauthenticated', 'answer', 'approve'],
        ['unauthenticated', 'list', undefined],
        ['unauthenticated', 'answer', 'approve'],
      ]);
      expect(refused[0]?.peer_pid).toBe(process.pid);
      expect(refused[0]?.peer_sandboxed).toBeUndefined();
      expect(JSON.stringify(refused)).not.toContain(key.toString('base64url'));
    } finally {
      await socket.close();
    }
  });

  it('refuses a caller with the key in another PID namespace', async () => {
    const { queue, socket, key, refused } = await started({
      peerOf: () =>
        Promise.resolve({ pids: [1], uid: 0, user: 'someone', otherPidNamespace: true }),
    });
    try {
      void queue.ask(ASK);
      const reply = await askSupervisor(socket.path, thisProcess(), key, {
        method: 'answer',
        request: 'a1',
        decision: 'approve',
      });
      expect(reply).toMatchObject({ error: { code: 'sandboxed-caller' } });
      expect(queue.pending().map((p) => p.id)).toEqual(['a1']);
      expect(refused).toMatchObject([{ code: 'sandboxed-caller', peer_sandboxed: true }]);
    } finally {
      await socket.close();
    }
  });

  it('falls back to the socket owner when the peer cannot be looked up', async () => {
    const { queue, socket, key } = await started({ peerOf: () => Promise.resolve(undefined) });
    try {
      void queue.ask(ASK);
      const reply = await askSupervisor(socket.path, thisProcess(), key, {
        method: 'answer',
        request: 'a1',
        decision: 'approve',
      });
      expect(reply).toMatchObject({ answer: { by: 'owner-fallback' } });
    } finally {
      await socket.close();
    }
  });

  it('the client refuses a server that cannot prove the key', async () => {
    const dir = await tmpDir('codex-mmo-fake-');
    const path = join(dir, 'fake.sock');
    const fake = createServer((s) => {
      s.write('{"challenge":"c"}\n');
      s.on('data', () => {
        const body = JSON.stringify({ answer: { id: 'a1', decision: 'approve' } });
        s.end(`${JSON.stringify({ body, proof: '00' })}\n`);
      });
    });
    await new Promise<void>((resolve) => fake.listen(path, resolve));
    try {
      await expect(
        askSupervisor(path, thisProcess(), randomBytes(32), { method: 'list' }),
      ).rejects.toThrow(/did not prove/);
    } finally {
      fake.close();
    }
  });
});

describe('the session supervision', () => {
  it('writes the key 0600, records refusals without secrets and removes the key at the end', async () => {
    const dir = await tmpDir('codex-mmo-sup-');
    const supervision = await SessionSupervision.start({
      session: 's1',
      dir,
      socketPath: join(dir, 'approvals.sock'),
      timeoutSec: 60,
      secrets: [],
    });
    const keyFile = approvalKeyPath(dir);
    const keyText = await readFile(keyFile, 'utf8');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const asked = supervision.queue.ask(ASK);
    const refusedLines = await raw(supervision.socketPath, () => [
      { method: 'answer', request: 'a1', decision: 'approve', user: 'operator' },
    ]);
    expect(refusedLines.at(-1)).toContain('unauthenticated');
    await supervision.close();
    expect(await asked).toMatchObject({ how: 'session-ended' });
    expect(existsSync(keyFile)).toBe(false);
    const approvals = await readFile(join(dir, 'approvals.jsonl'), 'utf8');
    const events = await readFile(join(dir, 'events.jsonl'), 'utf8');
    expect(approvals).toContain('"type":"refused"');
    expect(approvals).toContain('"code":"unauthenticated"');
    expect(events).toContain('"type":"approval.refused"');
    for (const text of [approvals, events]) {
      expect(text).not.toContain(keyText);
      expect(text).not.toContain('operator');
    }
  });
});
