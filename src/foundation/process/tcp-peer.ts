/**
 * Which process holds the client end of an accepted loopback TCP connection, from the kernel
 * rather than from anything the client says: the connection's socket inode from /proc/net/tcp
 * (and tcp6), then the process whose /proc/PID/fd holds that socket, with its start time, so a
 * reused pid is a different process; or that nobody holds it any more. Linux only.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

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

  constructor(private readonly serverPort: number) {}

  async find(clientPort: number, hints: PeerHints = {}): Promise<TcpPeer> {
    const looks = Math.max(1, hints.looks ?? GONE_LOOKS);
    for (let look = 0; look < looks; look++) {
      const take = await this.read();
      if (hints.closed?.() === true) return { kind: 'gone' };
      const tables = await take();
      if (tables === undefined) return { kind: 'unknown' };
      const entry = await this.entryIn(tables, clientPort);
      if (entry !== undefined) {
        return ownerOf(`socket:[${String(entry.inode)}]`, hints.expect ?? [], tables);
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

  private async entryIn(tables: TcpTables, clientPort: number): Promise<TcpEntry | undefined> {
    const match = (e: TcpEntry): boolean =>
      e.localPort === clientPort && e.remotePort === this.serverPort;
    // an IPv6 client socket reaching 127.0.0.1 is listed in tcp6: read it only when tcp has none
    const inV4 = tables.v4.find(match);
    if (inV4 !== undefined) return inV4;
    tables.v6 ??= readTable('/proc/net/tcp6').then(parseProcNetTcp);
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

/** Who holds the client end of the loopback connection from `clientPort` to `serverPort`. */
export function tcpPeer(serverPort: number, clientPort: number): Promise<TcpPeer> {
  return new TcpPeerFinder(serverPort).find(clientPort);
}
