/**
 * The client process of a loopback TCP connection, read from /proc: parsing `/proc/net/tcp`
 * lines, finding a child process that holds a live connection (with its start time), and
 * nobody for a port no connection uses or once the client has gone.
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';

import { afterAll, describe, expect, it } from 'vitest';

import {
  parseProcNetTcp,
  processStart,
  tcpPeer,
  TcpPeerFinder,
} from '../../../src/foundation/process/tcp-peer.js';

const SAMPLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:A1B2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 20 4 30 10 -1
   1: 0100007F:1F90 0100007F:A1B2 01 00000000:00000000 00:00000000 00000000  1000        0 4243 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:C000 0100007F:1F90 06 00000000:00000000 03:00000000 00000000     0        0 0 3 0000000000000000
`;

const server = createServer();
const accepted: Socket[] = [];
server.on('connection', (socket) => accepted.push(socket));

afterAll(() => {
  for (const socket of accepted) socket.destroy();
  server.close();
});

describe('tcp peer', () => {
  it('parses ports and inodes, skipping sockets no process holds', () => {
    expect(parseProcNetTcp(SAMPLE)).toEqual([
      { localPort: 0xa1b2, remotePort: 0x1f90, inode: 4242 },
      { localPort: 0x1f90, remotePort: 0xa1b2, inode: 4243 },
    ]);
  });

  it('names the process holding the client end, with its start time', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const connected = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const script = `require('net').connect(${String(port)}, '127.0.0.1'); setTimeout(() => {}, 30000)`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    try {
      const socket = await connected;
      const peer = await tcpPeer(port, socket.remotePort ?? 0);
      expect(peer).toEqual({
        kind: 'process',
        process: { pid: child.pid, start: processStart(child.pid ?? 0) },
      });
      // a port no connection uses: nobody holds it
      expect(await tcpPeer(port, 1)).toEqual({ kind: 'gone' });
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      // once the client is gone, its end of the connection is nobody's
      expect(await tcpPeer(port, socket.remotePort ?? 0)).toEqual({ kind: 'gone' });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('names the real holder whatever process it is told to expect, for lookups made at once', async () => {
    const port = (server.address() as AddressInfo).port;
    const three: Socket[] = [];
    const connected = new Promise<void>((resolve) => {
      const take = (socket: Socket): void => {
        three.push(socket);
        if (three.length === 3) {
          server.off('connection', take);
          resolve();
        }
      };
      server.on('connection', take);
    });
    const script = `for (let i = 0; i < 3; i++) require('net').connect(${String(port)}, '127.0.0.1'); setTimeout(() => {}, 30000)`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    try {
      await connected;
      const holder = {
        kind: 'process',
        process: { pid: child.pid, start: processStart(child.pid ?? 0) },
      };
      const finder = new TcpPeerFinder(port);
      const ports = three.map((socket) => socket.remotePort ?? 0);
      // asked at once: one answer each, all the child's, whoever is expected
      const found = await Promise.all([
        finder.find(ports[0] ?? 0, { expect: [child.pid ?? 0] }),
        finder.find(ports[1] ?? 0, { expect: [process.pid] }),
        finder.find(ports[2] ?? 0),
      ]);
      expect(found).toEqual([holder, holder, holder]);
      // a port nobody uses is gone after its looks, one look or three
      expect(await finder.find(1, { looks: 1 })).toEqual({ kind: 'gone' });
      expect(await finder.find(1)).toEqual({ kind: 'gone' });
      // a connection its client has closed is gone without a look, live or not in the table
      expect(await finder.find(ports[0] ?? 0, { closed: () => true })).toEqual({ kind: 'gone' });
      expect(await finder.find(ports[0] ?? 0, { closed: () => false })).toEqual(holder);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
