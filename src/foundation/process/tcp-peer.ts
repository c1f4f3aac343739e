/**
 * Which process holds the client end of an accepted loopback TCP connection, from the kernel
 * rather than from anything the client says: the connection's socket inode from /proc/net/tcp
 * (and tcp6), then the process whose /proc/PID/fd holds that socket, with its start time, so a
 * reused pid is a different process; or that nobody holds it any more. Linux only.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

import { descendants } from './process-tree.js';

/** A process as /proc names it: pid and start time (clock ticks after boot). */
export interface ProcessStamp {
  readonly pid: number;
  readonly start: string;
}

interface TcpEntry {
  readonly localPort: number;
  readonly remotePort: number;
  readonly inode: number;
}

/** The port of a `/proc/net/tcp` address (`0100007F:1F90`, or the longer IPv6 form). */
function portOf(address: string): number {
  return Number.parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
}

/** Parses `/proc/net/tcp` or `/proc/net/tcp6` into (local port, remote port, inode); pure. */
export function parseProcNetTcp(text: string): TcpEntry[] {
  const out: TcpEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const remote = fields[2];
    const inode = Number(fields[9]);
    if (local === undefined || remote === undefined || !Number.isInteger(inode) || inode <= 0) {
      continue;
    }
    out.push({ localPort: portOf(local), remotePort: portOf(remote), inode });
  }
  return out;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The start time of `pid` (field 22 of /proc/PID/stat), or undefined when it is gone. */
export function processStart(pid: number): string | undefined {
  const text = readText(`/proc/${String(pid)}/stat`);
  if (text === '') return undefined;
  // the command name (field 2) may hold spaces and parentheses: fields follow the last ')'
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
}

function holdsSocket(pid: string, link: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/**
 * Who holds the client end of a connection: a process, nobody any more (`gone`: the client
 * closed it, or the connection is over), or `unknown` (the kernel's tables cannot be read).
 */
export type TcpPeer =
  | { readonly kind: 'process'; readonly process: ProcessStamp }
  | { readonly kind: 'gone' }
  | { readonly kind: 'unknown' };

/** How often a peer that looks gone is looked for again before it is taken as gone. */
const GONE_LOOKS = 3;

/**
 * Who holds the client end of the loopback connection from `clientPort` to our `serverPort`;
 * this process's descendants (where a session's Codex runs) are looked at first, then every
 * process. A peer that looks gone is looked for again: the kernel writes `/proc/net/tcp` a page
 * at a time, so a read while other sockets open and close can miss a live entry.
 */
export function tcpPeer(serverPort: number, clientPort: number): TcpPeer {
  let peer = lookOnce(serverPort, clientPort);
  for (let look = 1; look < GONE_LOOKS && peer.kind === 'gone'; look++) {
    peer = lookOnce(serverPort, clientPort);
  }
  return peer;
}

function lookOnce(serverPort: number, clientPort: number): TcpPeer {
  const v4 = readText('/proc/net/tcp');
  if (v4 === '') return { kind: 'unknown' };
  const match = (e: TcpEntry): boolean => e.localPort === clientPort && e.remotePort === serverPort;
  // an IPv6 client socket reaching 127.0.0.1 is listed in tcp6: read it only when tcp has none
  const entry =
    parseProcNetTcp(v4).find(match) ?? parseProcNetTcp(readText('/proc/net/tcp6')).find(match);
  // a closed client end has no inode (it is left out) or no entry at all
  if (entry === undefined) return { kind: 'gone' };
  const link = `socket:[${String(entry.inode)}]`;
  let all: string[];
  try {
    all = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return { kind: 'unknown' };
  }
  const first = descendants(process.pid).map(String);
  for (const pid of [...first, ...all.filter((p) => !first.includes(p))]) {
    if (!holdsSocket(pid, link)) continue;
    const start = processStart(Number(pid));
    return start === undefined
      ? { kind: 'gone' }
      : { kind: 'process', process: { pid: Number(pid), start } };
  }
  return { kind: 'gone' };
}
