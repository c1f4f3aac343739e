/**
 * The gateway's relay socket under a flood of idle connections that never send `hello`: at most
 * the cap stay open, the flood is reported once, and each is closed when its time runs out.
 */
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ListenerFlood } from '../../../src/foundation/process/connection-limits.js';
import { GatewayHub } from '../../../src/runtime/gateway/gateway-hub.js';
import { flood } from '../../support/flood.js';
import { tmpDir } from '../../support/tmp.js';
import { waitFor } from '../../support/world.js';

const CAP = 16;

async function hubWith(authTimeoutMs: number, floods: ListenerFlood[]): Promise<GatewayHub> {
  const dir = await tmpDir('codex-mmo-relay-flood-');
  return GatewayHub.start({
    transport: 'relay',
    socketPath: join(dir, 'gateway.sock'),
    callsFile: join(dir, 'calls.jsonl'),
    secrets: [],
    limits: { maxPending: CAP, authTimeoutMs, onFlood: (f) => floods.push(f) },
  });
}

describe('the relay socket under a flood of idle connections', () => {
  it('keeps at most the cap open and reports the flood once', async () => {
    const floods: ListenerFlood[] = [];
    const hub = await hubWith(60_000, floods);
    const idle = flood(hub.socketPath);
    await idle.more(300);
    await waitFor(() => idle.closed() >= 300 - CAP, 5_000);
    expect(idle.open()).toBe(CAP);
    expect(floods.map((f) => [f.listener, f.limit])).toEqual([['gateway-relay', CAP]]);
    idle.end();
    await hub.close();
  });

  it('closes a connection without hello when its time runs out', async () => {
    const floods: ListenerFlood[] = [];
    const hub = await hubWith(200, floods);
    const idle = flood(hub.socketPath);
    await idle.more(10);
    await waitFor(() => idle.closed() === 10, 2_000);
    expect(idle.open()).toBe(0);
    expect(floods).toEqual([]);
    await hub.close();
  });
});
