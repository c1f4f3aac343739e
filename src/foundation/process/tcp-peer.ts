/**
 * Which process holds the client end of an accepted loopback TCP connection, from the kernel
 * rather than from anything the client says: the connection's socket inode from /proc/net/tcp
 * (and tcp6), then the process whose /proc/PID/fd holds that socket, with its start time, so a
 * reused pid is a different process; or that nobody holds it any more. Linux only.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { endianness } from 'node:os';

import { descendants } from './process-tree.js';

/** A process as /proc names it: pid and start time (clock ticks after boot). */
export interface ProcessStamp {
  readonly pid: number;
  readonly start: string;
}

/** One end of a TCP connection: its address (as `canonicalAddress` writes it) and port. */
export interface TcpEnd {
  readonly address: string;
  readonly port: number;
}

interface TcpEntry {
  readonly local: TcpEnd;
  readonly remote: TcpEnd;
  readonly inode: number;
}

/**
 * An IP address as the peer check compares it: dotted IPv4 for an IPv4 address and for an IPv6
 * one that maps an IPv4 address (`::ffff:127.0.0.1`); any other IPv6 address as `v6:` and its
 * eight groups in hex without leading zeros (as `parseProcNetTcp` writes it).
 */
export function canonicalAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = (text: string | undefined) =>
    text === undefined || text === '' ? [] : text.split(':');
  const left = groups(head);
  const right = groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return `v6:${[...left, ...zeros, ...right].map((g) => Number.parseInt(g, 16).toString(16)).join(':')}`;
}

/**
 * The address of a `/proc/net/tcp` field (`0100007F`, or 32 digits for tcp6): the kernel prints
 * each 32-bit word of the address in the host's byte order.
 */
function addressOf(hex: string, littleEndian: boolean): string {
  const bytes = Buffer.alloc(hex.length / 2);
  for (let word = 0; word * 8 < hex.length; word++) {
    const value = Number.parseInt(hex.slice(word * 8, word * 8 + 8), 16);
    if (littleEndian) bytes.writeUInt32LE(value, word * 4);
    else bytes.writeUInt32BE(value, word * 4);
  }
  const v4 = (at: number) => [...bytes.subarray(at, at + 4)].join('.');
  if (bytes.length === 4) return v4(0);
  // an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return v4(12);
  }
  const groups: string[] = [];
  for (let at = 0; at < 16; at += 2) groups.push(bytes.readUInt16BE(at).toString(16));
  return `v6:${groups.join(':')}`;
}

function endOf(field: string, littleEndian: boolean): TcpEnd {
  const at = field.lastIndexOf(':');
  return {
    address: addressOf(field.slice(0, at), littleEndian),
    port: Number.parseInt(field.slice(at + 1), 16),
  };
}

/**
 * Parses `/proc/net/tcp` or `/proc/net/tcp6` into (local end, remote end, inode), skipping sockets
 * no process holds; pure but for the byte order (the host's, unless given).
 */
export function parseProcNetTcp(text: string, littleEndian = endianness() === 'LE'): TcpEntry[] {
  const out: TcpEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const remote = fields[2];
    const inode = Number(fields[9]);
    if (local === undefined || remote === undefined || !Number.isInteger(inode) || inode <= 0) {
      continue;
    }
    out.push({ local: endOf(local, littleEndian), remote: endOf(remote, littleEndian), inode });
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

/**
 * A TCP table, read off the event loop: the kernel walks its whole hash table for every read
 * (milliseconds on a large machine), which the supervisor's other work need not wait for.
 */
async function readTable(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
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

/** The kernel's loopback TCP tables as read at one moment. */
interface TcpTables {
  readonly v4: readonly TcpEntry[];
  /** Read only when an entry was not in `v4`. */
  v6?: Promise<readonly TcpEntry[]>;
  /** The processes to look through, as /proc listed them when first needed in this batch. */
  processes?: readonly string[] | undefined;
}

/** What a look for a peer may take for granted, to look less. */
export interface PeerHints {
  /** Processes to look at first (the one bound to the connection's route). */
  readonly expect?: readonly number[];
  /** A process whose tree is looked through next (the one spawned for the route's process). */
  readonly within?: number;
  /** How many reads of the tables it takes for a connection to count as gone (default 3). */
  readonly looks?: number;
  /** Whether the client has closed its end already: then it is gone, and nothing is read. */
  readonly closed?: () => boolean;
}

/**
 * Who holds the client ends of loopback connections to our `serverPort`. Reading the kernel's
 * TCP tables costs milliseconds whatever their size (the kernel walks its whole hash table), so
 * the connections asked about at the same moment (Codex opens one per MCP server at once) share
 * one read; a connection it does not list is looked for again in fresh
 * reads. A process expected to hold the connection is looked at before any other; then this
 * process's descendants (where a session's Codex runs), then every process. A peer that looks
 * gone is looked for again: the kernel writes `/proc/net/tcp` a page at a time, so a read while
 * other sockets open and close can miss a live entry.
 */
export class TcpPeerFinder {
  /** The next read, not yet begun: every look asked for meanwhile is answered by it. */
  private next: Promise<() => Promise<TcpTables | undefined>> | undefined;

  /** `server`: the listening end every connection asked about reaches. */
  constructor(private readonly server: TcpEnd) {}

  /** Who holds the end `client` of a connection to the server (both ends compared whole). */
  async find(client: TcpEnd, hints: PeerHints = {}): Promise<TcpPeer> {
    const looks = Math.max(1, hints.looks ?? GONE_LOOKS);
    for (let look = 0; look < looks; look++) {
      const take = await this.read();
      if (hints.closed?.() === true) return { kind: 'gone' };
      const tables = await take();
      if (tables === undefined) return { kind: 'unknown' };
      const entry = await this.entryIn(tables, client);
      if (entry !== undefined) {
        const first = [
          ...(hints.expect ?? []),
          ...(hints.within !== undefined ? [hints.within, ...descendants(hints.within)] : []),
        ];
        return ownerOf(`socket:[${String(entry.inode)}]`, first, tables);
      }
    }
    return { kind: 'gone' };
  }

  /**
   * A read that begins after every look already asked for (once this turn's I/O is handled), and
   * only if one of them still needs it: taken once, shared by all. A look asked while it is under
   * way waits for the next one, which lists every connection made before it began.
   */
  private read(): Promise<() => Promise<TcpTables | undefined>> {
    this.next ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.next = undefined;
      let tables: Promise<TcpTables | undefined> | undefined;
      return () =>
        (tables ??= readTable('/proc/net/tcp').then((v4) =>
          v4 === '' ? undefined : { v4: parseProcNetTcp(v4) },
        ));
    });
    return this.next;
  }

  private async entryIn(tables: TcpTables, client: TcpEnd): Promise<TcpEntry | undefined> {
    const at = canonicalAddress(client.address);
    const here = canonicalAddress(this.server.address);
    // the whole of both ends: a second loopback address may use the same client port
    const match = (e: TcpEntry): boolean =>
      e.local.port === client.port &&
      e.local.address === at &&
      e.remote.port === this.server.port &&
      e.remote.address === here;
    // an IPv6 client socket reaching 127.0.0.1 is listed in tcp6: read it only when tcp has none
    const inV4 = tables.v4.find(match);
    if (inV4 !== undefined) return inV4;
    tables.v6 ??= readTable('/proc/net/tcp6').then((text) => parseProcNetTcp(text));
    return (await tables.v6).find(match);
  }
}

/** Every process, this process's descendants first (where a session's Codex runs). */
function processesToSearch(): readonly string[] | undefined {
  let all: string[];
  try {
    all = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const first = descendants(process.pid).map(String);
  const seen = new Set(first);
  return [...first, ...all.filter((p) => !seen.has(p))];
}

/**
 * The process holding socket `link`: `expect` first, then the processes of `tables`' batch (one
 * walk of /proc for all the connections it answers).
 */
function ownerOf(link: string, expect: readonly number[], tables: TcpTables): TcpPeer {
  const stamped = (pid: number): TcpPeer => {
    const start = processStart(pid);
    return start === undefined ? { kind: 'gone' } : { kind: 'process', process: { pid, start } };
  };
  for (const pid of expect) if (holdsSocket(String(pid), link)) return stamped(pid);
  tables.processes ??= processesToSearch();
  if (tables.processes === undefined) return { kind: 'unknown' };
  for (const pid of tables.processes) {
    if (holdsSocket(pid, link)) return stamped(Number(pid));
  }
  return { kind: 'gone' };
}

/** Who holds the end `client` of the loopback connection to `server`. */
export function tcpPeer(server: TcpEnd, client: TcpEnd): Promise<TcpPeer> {
  return new TcpPeerFinder(server).find(client);
}
