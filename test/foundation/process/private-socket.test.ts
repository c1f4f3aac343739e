/**
 * A session socket: replaces a stale file at its path, is 0600 from the moment it exists, and
 * accepts connections.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { listenPrivateSocket } from '../../../src/foundation/process/private-socket.js';

describe('listenPrivateSocket', () => {
  it('replaces a stale file, is private to the user and accepts connections', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'codex-mmo-socket-'));
    const path = join(dir, 'test.sock');
    await writeFile(path, 'stale');
    let connected = 0;
    const server = await listenPrivateSocket(path, (socket) => {
      connected++;
      socket.end();
    });
    try {
      expect((await stat(path)).isSocket()).toBe(true);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      // the process's own umask is back: a file made now gets the usual mode
      await writeFile(join(dir, 'plain'), '', { mode: 0o644 });
      expect((await stat(join(dir, 'plain'))).mode & 0o077).not.toBe(0);
      await new Promise<void>((resolve, reject) => {
        const client = createConnection(path, () => {
          client.end();
        });
        client.once('close', () => {
          resolve();
        });
        client.once('error', reject);
      });
      expect(connected).toBe(1);
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await rm(dir, { recursive: true, force: true });
    }
  });
});
