/**
 * The approval socket under a flood of idle connections that never answer its challenge, as a
 * hostile shell opens them: at most the cap stay open, each is closed when its time runs out,
 * the flood is recorded once in the session's event log (listener and count, no key), a caller
 * proving the key is answered during the flood, and the failure cause names the flood.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  approvalKeyPath,
  newNonce,
  readApprovalKey,
  requestProof,
} from '../../../src/runtime/approvals/approval-auth.js';
import { SessionSupervision } from '../../../src/runtime/approvals/session-supervision.js';
import { readEvents } from '../../../src/runtime/events/read-events.js';
import { flood, lineClient, sleep } from '../../support/flood.js';
import { tmpDir } from '../../support/tmp.js';
import { waitFor } from '../../support/world.js';

const CAP = 16;

/** A `list` proven with the session's key over the socket's challenge: the reply's body. */
async function proven(path: string, key: Buffer): Promise<unknown> {
  const client = await lineClient(path);
  const { challenge } = (await client.next()) as { challenge: string };
  const nonce = newNonce();
  const body = JSON.stringify({ method: 'list' });
  client.send({ body, nonce, proof: requestProof(key, challenge, nonce, body) });
  const reply = (await client.next()) as { body: string };
  client.close();
  return JSON.parse(reply.body) as unknown;
}

async function supervised(
  authTimeoutMs: number,
): Promise<{ dir: string; supervision: SessionSupervision }> {
  const dir = await tmpDir('codex-mmo-flood-');
  const supervision = await SessionSupervision.start({
    session: 's1',
    dir,
    socketPath: join(dir, 'approvals.sock'),
    timeoutSec: 60,
    secrets: [],
    limits: { maxPending: CAP, authTimeoutMs },
  });
  return { dir, supervision };
}

describe('the approval socket under a flood of idle connections', () => {
  it('keeps at most the cap open, answers a proven caller and records the flood', async () => {
    const { dir, supervision } = await supervised(60_000);
    const keyText = await readFile(approvalKeyPath(dir), 'utf8');
    const key = await readApprovalKey(approvalKeyPath(dir));
    expect(supervision.floodCause()).toBeUndefined();
    const idle = flood(supervision.socketPath);
    await idle.more(300);
    await waitFor(() => idle.closed() >= 300 - CAP, 5_000);
    expect(idle.open()).toBe(CAP);
    const keepFlooding = setInterval(() => {
      void idle.more(20);
    }, 10);
    try {
      const reply = await proven(supervision.socketPath, key);
      expect(reply).toEqual({ approvals: [] });
    } finally {
      clearInterval(keepFlooding);
    }
    await sleep(100);
    expect(idle.open()).toBeLessThanOrEqual(CAP);
    idle.end();
    expect(supervision.floodCause()).toMatch(
      /^flooded with connections that did not authenticate: approval-socket \(\d+ closed; 16 waiting to authenticate is its limit\)$/,
    );
    await supervision.close();
    const floods = (await readEvents(dir)).filter((e) => e.type === 'listener.flood');
    expect(floods).toHaveLength(1);
    expect(floods[0]).toMatchObject({ listener: 'approval-socket', count: CAP });
    expect(await readFile(join(dir, 'events.jsonl'), 'utf8')).not.toContain(keyText.trim());
  });

  it('closes a connection that does not prove the key in time', async () => {
    const { supervision } = await supervised(200);
    const idle = flood(supervision.socketPath);
    await idle.more(10);
    await waitFor(() => idle.closed() === 10, 2_000);
    expect(idle.open()).toBe(0);
    expect(supervision.floodCause()).toBeUndefined();
    await supervision.close();
  });
});
