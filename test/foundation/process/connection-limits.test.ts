/**
 * The limits on a listener's connections that have not authenticated: at most the cap wait at
 * once (the one waiting longest is closed, unread, for each new one), each is closed when its
 * time runs out, an authenticated one is never closed by them, and the flood is reported once.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import {
  ConnectionLimits,
  DEFAULT_AUTH_TIMEOUT_MS,
  DEFAULT_MAX_PENDING,
  httpTimeouts,
  type ListenerFlood,
} from '../../../src/foundation/process/connection-limits.js';
import { flood, sleep } from '../../support/flood.js';

let server: Server | undefined;

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s !== undefined) await new Promise((resolve) => s.close(resolve));
});

/** A TCP listener under `limits`; a connection that sends `auth\n` authenticates. */
async function listen(limits: ConnectionLimits): Promise<{ port: number; read: () => number }> {
  let bytes = 0;
  const s = createServer((socket: Socket) => {
    limits.admit(socket);
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (chunk.toString().includes('auth\n')) limits.authenticated(socket);
    });
    socket.on('error', () => undefined);
  });
  server = s;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { port: (s.address() as AddressInfo).port, read: () => bytes };
}

describe('ConnectionLimits', () => {
  it('keeps at most the cap waiting, closes the oldest past it and reports the flood once', async () => {
    const floods: ListenerFlood[] = [];
    const limits = new ConnectionLimits('test-listener', {
      maxPending: 8,
      authTimeoutMs: 60_000,
      onFlood: (f) => floods.push({ listener: f.listener, limit: f.limit, closed: f.closed }),
    });
    const { port, read } = await listen(limits);
    const idle = flood(port);
    await idle.more(30);
    await sleep(100);
    expect(limits.waiting).toBe(8);
    expect(idle.open()).toBe(8);
    expect(limits.closed).toBe(22);
    expect(limits.flooded).toBe(true);
    expect(floods).toEqual([{ listener: 'test-listener', limit: 8, closed: 1 }]);
    await idle.more(10);
    await sleep(50);
    expect(floods).toHaveLength(1);
    expect(limits.closed).toBe(32);
    expect(read()).toBe(0);
    idle.end();
  });

  it('closes a connection that does not authenticate in time, and keeps one that does', async () => {
    const limits = new ConnectionLimits('timed', { maxPending: 64, authTimeoutMs: 200 });
    const { port } = await listen(limits);
    const idle = flood(port);
    await idle.more(5);
    const client = await new Promise<Socket>((resolve) => {
      const c = createConnection({ port, host: '127.0.0.1' }, () => {
        c.write('auth\n');
        resolve(c);
      });
    });
    let clientClosed = false;
    client.on('close', () => {
      clientClosed = true;
    });
    await sleep(100);
    expect(idle.open()).toBe(5);
    await sleep(400);
    expect(idle.open()).toBe(0);
    expect(idle.closed()).toBe(5);
    expect(clientClosed).toBe(false);
    expect(limits.waiting).toBe(0);
    expect(limits.flooded).toBe(false);
    client.destroy();
  });

  it('has defaults of a few seconds and 64 waiting, and times HTTP headers, not answers', () => {
    expect(DEFAULT_AUTH_TIMEOUT_MS).toBeGreaterThanOrEqual(2_000);
    expect(DEFAULT_AUTH_TIMEOUT_MS).toBeLessThanOrEqual(10_000);
    expect(DEFAULT_MAX_PENDING).toBe(64);
    const limits = new ConnectionLimits('http');
    expect(limits.limit).toBe(64);
    const timeouts = httpTimeouts(new ConnectionLimits('http', { authTimeoutMs: 200 }));
    expect(timeouts.headersTimeout).toBe(200);
    expect(timeouts.requestTimeout).toBeGreaterThanOrEqual(60_000);
    expect(timeouts.connectionsCheckingInterval).toBeLessThanOrEqual(200);
  });
});
