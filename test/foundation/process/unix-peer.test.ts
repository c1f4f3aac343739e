/**
 * The peer of a Unix socket connection, from the kernel: `ss` output parsing, this process
 * connecting to itself (its own pid and uid, same PID namespace), and a child in a fresh PID
 * namespace (as a bubblewrap sandbox has) seen as such.
 */
import { spawn } from 'node:child_process';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  parseSsUnix,
  unixPeer,
  userOfUid,
  type UnixPeer,
} from '../../../src/foundation/process/unix-peer.js';
import { tmpDir } from '../../support/tmp.js';

async function peerOfNextConnection(
  connect: (path: string) => void,
): Promise<UnixPeer | undefined> {
  const path = join(await tmpDir('codex-mmo-peer-'), 'p.sock');
  return new Promise((resolve, reject) => {
    const server = createServer((socket: Socket) => {
      unixPeer(socket).then(
        (peer) => {
          socket.destroy();
          server.close();
          resolve(peer);
        },
        (error: unknown) => {
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    server.listen(path, () => {
      connect(path);
    });
  });
}

describe('unixPeer', () => {
  it('parses ss lines, paths with spaces and lines without processes', () => {
    const text = [
      'u_str ESTAB 0      0      /tmp/a b/approvals.sock 27130            * 27129 users:(("node",pid=8884,fd=21))',
      'u_str ESTAB 0      0                        * 27129            * 27130 users:(("node",pid=9000,fd=20),("sh",pid=9001,fd=3))',
      'u_str ESTAB 0      0                        * 5            * 6',
      'garbage',
    ].join('\n');
    expect(parseSsUnix(text)).toEqual([
      { local: 27130, peer: 27129, pids: [8884] },
      { local: 27129, peer: 27130, pids: [9000, 9001] },
      { local: 5, peer: 6, pids: [] },
    ]);
  });

  it('names this process, its uid and user for a connection from itself', async () => {
    let client: Socket | undefined;
    const peer = await peerOfNextConnection((path) => {
      client = createConnection(path);
      client.on('error', () => undefined);
    });
    client?.destroy();
    expect(peer?.pids).toContain(process.pid);
    expect(peer?.uid).toBe(process.getuid?.());
    expect(peer?.user).toBe(await userOfUid(process.getuid?.() ?? -1));
    expect(peer?.otherPidNamespace).toBe(false);
  });

  it('sees a peer in another PID namespace', async () => {
    const script = `require('node:net').createConnection(process.argv[1]).on('connect', () => setTimeout(() => process.exit(0), 3000))`;
    let child: ReturnType<typeof spawn> | undefined;
    const peer = await peerOfNextConnection((path) => {
      child = spawn(
        'unshare',
        ['--user', '--map-root-user', '--pid', '--fork', process.execPath, '-e', script, path],
        { stdio: 'ignore' },
      );
    });
    child?.kill('SIGKILL');
    expect(peer?.otherPidNamespace).toBe(true);
    expect(peer?.uid).toBe(process.getuid?.());
  });
});
