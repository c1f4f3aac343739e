/**
 * The client process of a loopback TCP connection, read from /proc: parsing `/proc/net/tcp`
 * lines, finding a child process that holds a live connection (with its start time), and
 * nobody for a port no connection uses or once the client has gone; connections asked about
 * one after another while reads are under way (joining one, or waiting for the next) are each
 * found.
 */
import { spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

import { afterAll, describe, expect, it } from 'vitest';

import {
  canonicalAddress,
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

/** A child process holding one connection to `port`, from `from` (default: any address and port). */
async function connectedChild(
  port: number,
  from: { address: string; port: number } | undefined,
): Promise<{ child: ReturnType<typeof spawn>; socket: Socket }> {
  const connected = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const local =
    from !== undefined ? `, localAddress: '${from.address}', localPort: ${String(from.port)}` : '';
  const script = `require('net').connect({ port: ${String(port)}, host: '127.0.0.1'${local} }); setTimeout(() => {}, 30000)`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  return { child, socket: await connected };
}

describe('tcp peer', () => {
  it('parses ports and inodes, skipping sockets no process holds', () => {
    const end = (port: number, address = '127.0.0.1') => ({ address, port });
    expect(parseProcNetTcp(SAMPLE, true)).toEqual([
      { local: end(0xa1b2), remote: end(0x1f90), inode: 4242 },
      { local: end(0x1f90), remote: end(0xa1b2), inode: 4243 },
    ]);
    // tcp6: an IPv4-mapped address is the IPv4 address, any other stays IPv6
    const six = `  sl  local_address                         remote_address                        st
   0: 0000000000000000FFFF00000100007F:A1B2 0000000000000000FFFF00000200007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 77 1
   1: 00000000000000000000000001000000:A1B3 00000000000000000000000001000000:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 78 1
`;
    expect(parseProcNetTcp(six, true)).toEqual([
      { local: end(0xa1b2), remote: end(0x1f90, '127.0.0.2'), inode: 77 },
      {
        local: end(0xa1b3, 'v6:0:0:0:0:0:0:0:1'),
        remote: end(0x1f90, 'v6:0:0:0:0:0:0:0:1'),
        inode: 78,
      },
    ]);
    // a big-endian host prints the words in network order
    expect(parseProcNetTcp(SAMPLE.replaceAll('0100007F', '7F000001'), false)[0]).toEqual({
      local: end(0xa1b2),
      remote: end(0x1f90),
      inode: 4242,
    });
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('127.0.0.2')).toBe('127.0.0.2');
    expect(canonicalAddress('::1')).toBe('v6:0:0:0:0:0:0:0:1');
    expect(canonicalAddress('FE80::0A:1')).toBe('v6:fe80:0:0:0:0:0:a:1');
  });

  it('names the process holding the client end, with its start time', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const connected = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const script = `require('net').connect(${String(port)}, '127.0.0.1'); setTimeout(() => {}, 30000)`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    try {
      const socket = await connected;
      const here = { address: '127.0.0.1', port };
      const peer = await tcpPeer(here, { address: '127.0.0.1', port: socket.remotePort ?? 0 });
      expect(peer).toEqual({
        kind: 'process',
        process: { pid: child.pid, start: processStart(child.pid ?? 0) },
      });
      // a port no connection uses: nobody holds it
      expect(await tcpPeer(here, { address: '127.0.0.1', port: 1 })).toEqual({ kind: 'gone' });
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      // once the client is gone, its end of the connection is nobody's
      expect(await tcpPeer(here, { address: '127.0.0.1', port: socket.remotePort ?? 0 })).toEqual({
        kind: 'gone',
      });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('tells apart two clients of one port number on two loopback addresses', async () => {
    const port = (server.address() as AddressInfo).port;
    const first = await connectedChild(port, undefined);
    const clientPort = first.socket.remotePort ?? 0;
    // a second process takes the same port number on another loopback address
    const second = await connectedChild(port, { address: '127.0.0.2', port: clientPort });
    try {
      expect(second.socket.remotePort).toBe(clientPort);
      const finder = new TcpPeerFinder({ address: '127.0.0.1', port });
      const holder = (pid: number | undefined) => ({
        kind: 'process',
        process: { pid, start: processStart(pid ?? 0) },
      });
      expect(
        await finder.find(
          { address: second.socket.remoteAddress ?? '', port: clientPort },
          { expect: [first.child.pid ?? 0] },
        ),
      ).toEqual(holder(second.child.pid));
      expect(
        await finder.find(
          { address: first.socket.remoteAddress ?? '', port: clientPort },
          { expect: [second.child.pid ?? 0] },
        ),
      ).toEqual(holder(first.child.pid));
    } finally {
      first.child.kill('SIGKILL');
      second.child.kill('SIGKILL');
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
      const finder = new TcpPeerFinder({ address: '127.0.0.1', port });
      const ports = three.map((socket) => ({ address: '127.0.0.1', port: socket.remotePort ?? 0 }));
      const none = { address: '127.0.0.1', port: 1 };
      // asked at once: one answer each, all the child's, whoever is expected
      const found = await Promise.all([
        finder.find(ports[0] ?? none, { expect: [child.pid ?? 0] }),
        finder.find(ports[1] ?? none, { expect: [process.pid] }),
        finder.find(ports[2] ?? none),
      ]);
      expect(found).toEqual([holder, holder, holder]);
      // a tree looked through first: the holder in it, or found beyond it all the same
      const other = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        expect(await finder.find(ports[0] ?? none, { within: child.pid ?? 0 })).toEqual(holder);
        expect(await finder.find(ports[1] ?? none, { within: process.pid })).toEqual(holder);
        expect(await finder.find(ports[2] ?? none, { within: other.pid ?? 0 })).toEqual(holder);
      } finally {
        other.kill('SIGKILL');
      }
      // a port nobody uses is gone after its looks, one look or three
      expect(await finder.find(none, { looks: 1 })).toEqual({ kind: 'gone' });
      expect(await finder.find(none)).toEqual({ kind: 'gone' });
      // a connection its client has closed is gone without a look, live or not in the table
      expect(await finder.find(ports[0] ?? none, { closed: () => true })).toEqual({ kind: 'gone' });
      expect(await finder.find(ports[0] ?? none, { closed: () => false })).toEqual(holder);
      // one its client closes while it is looked for is gone then, without waiting for reads
      let closeNow = (): void => undefined;
      const ended = new Promise<void>((resolve) => (closeNow = resolve));
      const look = finder.find(ports[0] ?? none, { ended });
      closeNow();
      expect(await look).toEqual({ kind: 'gone' });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('finds each connection made and asked about while earlier reads are under way', async () => {
    const port = (server.address() as AddressInfo).port;
    const finder = new TcpPeerFinder({ address: '127.0.0.1', port });
    const clients: Socket[] = [];
    const looks: Promise<unknown>[] = [];
    const ends: number[] = [];
    try {
      // one connection after another, each asked about at once: the first read is under way
      // when the next connection comes, which joins it or waits for the read after it
      for (let i = 0; i < 12; i++) {
        const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
        const client = connect(port, '127.0.0.1');
        clients.push(client);
        const socket = await accepted;
        ends.push(socket.remotePort ?? 0);
        looks.push(finder.find({ address: '127.0.0.1', port: socket.remotePort ?? 0 }));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const here = {
        kind: 'process',
        process: { pid: process.pid, start: processStart(process.pid) },
      };
      expect(await Promise.all(looks)).toEqual(ends.map(() => here));
      // and a port nobody uses, asked about among them, is gone
      expect(await finder.find({ address: '127.0.0.1', port: 1 }, { looks: 1 })).toEqual({
        kind: 'gone',
      });
    } finally {
      for (const client of clients) client.destroy();
    }
  });
});
