/**
 * Which process holds the client end of an accepted loopback TCP connection, from the kernel
 * rather than from anything the client says: the connection's socket inode from /proc/net/tcp
 * (and tcp6), then the process whose /proc/PID/fd holds that socket, with its start time, so a
 * reused pid is a different process; or that nobody holds it any more. Linux only.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
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

/** One line of a TCP table, or undefined for the header and sockets no process holds. */
function parseLine(line: string, littleEndian: boolean): TcpEntry | undefined {
  const fields = line.trim().split(/\s+/);
  const local = fields[1];
  const remote = fields[2];
  const inode = Number(fields[9]);
  if (local === undefined || remote === undefined || !Number.isInteger(inode) || inode <= 0) {
    return undefined;
  }
  return { local: endOf(local, littleEndian), remote: endOf(remote, littleEndian), inode };
}

/**
 * Parses `/proc/net/tcp` or `/proc/net/tcp6` into (local end, remote end, inode), skipping sockets
 * no process holds; pure but for the byte order (the host's, unless given).
 */
export function parseProcNetTcp(text: string, littleEndian = endianness() === 'LE'): TcpEntry[] {
  const out: TcpEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    const entry = parseLine(line, littleEndian);
    if (entry !== undefined) out.push(entry);
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

/** A whole TCP table (tcp6, read only when an entry was not in tcp), or '' when unreadable. */
async function readTable(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

/** The `local_address` port of a table line, cheaply, to parse only the lines asked about. */
function localPortOf(line: string): number | undefined {
  const colon = line.indexOf(':', line.indexOf(':') + 1);
  if (colon < 0) return undefined;
  return Number.parseInt(line.slice(colon + 1, colon + 5), 16);
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

/** A connection asked about in one read, and what it found. */
interface Wanted {
  readonly client: TcpEnd;
  found?: TcpEntry;
}

/** A connection asked about before a read began: it may spare the read (`closed`). */
interface Asked extends Wanted {
  readonly closed: (() => boolean) | undefined;
  readonly settle: (found: TcpEntry | 'closed' | 'unreadable' | undefined) => void;
}

/** A connection that joined a read under way: found in the rest of it, or not. */
interface Joined extends Wanted {
  readonly settle: (found: TcpEntry | undefined) => void;
}

/** How much of a table is asked of the kernel at a time (it writes one page per read anyway). */
const CHUNK = 16 * 1024;

/**
 * One read of the kernel's TCP table for every connection asked about before it began. The kernel
 * walks its hash table as the file is read, so the read stops as soon as each of them is found.
 * A connection asked about while it is under way joins it, answered only by what the kernel
 * writes after it joined; one the rest of the read does not list is asked about in the next read.
 * A connection asked about before it began and not found is looked for in tcp6, read whole.
 */
class TableRead {
  private readonly asked: Asked[] = [];
  private readonly joined: Joined[] = [];
  private readonly ports = new Set<number>();
  private scanning = false;
  /** The processes to look through, as /proc listed them when first needed in this read. */
  processes?: readonly string[] | undefined;

  constructor(private readonly server: TcpEnd) {}

  /** What this read finds for `client` (canonical address); `closed` spares it the read. */
  want(
    client: TcpEnd,
    closed?: () => boolean,
  ): Promise<TcpEntry | 'closed' | 'unreadable' | undefined> {
    return new Promise((settle) => {
      this.asked.push({ client, closed, settle });
    });
  }

  /** What the rest of this read, under way, finds for `client`; undefined when it is over. */
  join(client: TcpEnd): Promise<TcpEntry | undefined> {
    if (!this.scanning) return Promise.resolve(undefined);
    return new Promise((settle) => {
      this.joined.push({ client, settle });
      this.ports.add(client.port);
    });
  }

  async run(): Promise<void> {
    const asked = this.asked.filter((w) => {
      if (w.closed?.() !== true) return true;
      w.settle('closed');
      return false;
    });
    if (asked.length === 0) return;
    for (const w of asked) this.ports.add(w.client.port);
    this.scanning = true;
    const readable = await this.scan(asked);
    this.scanning = false;
    for (const w of this.joined) w.settle(w.found);
    const missing = asked.filter((w) => w.found === undefined);
    for (const w of asked) {
      if (w.found !== undefined || !readable) w.settle(readable ? w.found : 'unreadable');
    }
    if (!readable || missing.length === 0) return;
    // an IPv6 client socket reaching 127.0.0.1 is listed in tcp6
    const six = parseProcNetTcp(await readTable('/proc/net/tcp6'));
    for (const w of missing) w.settle(six.find((e) => this.matches(e, w.client)));
  }

  /** The whole of both ends: a second loopback address may use the same client port. */
  private matches(e: TcpEntry, client: TcpEnd): boolean {
    return (
      e.local.port === client.port &&
      e.local.address === client.address &&
      e.remote.port === this.server.port &&
      e.remote.address === this.server.address
    );
  }

  /** Looks for each wanted connection in `line`. */
  private take(line: string, wanted: readonly Wanted[], littleEndian: boolean): void {
    const port = localPortOf(line);
    if (port === undefined || !this.ports.has(port)) return;
    const entry = parseLine(line, littleEndian);
    if (entry === undefined) return;
    for (const w of wanted) {
      if (w.found === undefined && this.matches(entry, w.client)) w.found = entry;
    }
  }

  /** Reads /proc/net/tcp until each of `asked` is found; false when it cannot be read. */
  private async scan(asked: readonly Wanted[]): Promise<boolean> {
    const littleEndian = endianness() === 'LE';
    let handle;
    try {
      handle = await open('/proc/net/tcp');
    } catch {
      return false;
    }
    try {
      const buffer = Buffer.alloc(CHUNK);
      let pending = '';
      let total = 0;
      let earlier: readonly Wanted[] = asked;
      for (;;) {
        // only what the kernel writes from now on may answer a look that joined before: a look
        // joining while this read is under way waits for the next one, and a line begun in an
        // earlier read answers only the looks of that one
        const before = [...asked, ...this.joined];
        const carried = pending !== '';
        const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
        total += bytesRead;
        const lines = (pending + buffer.toString('latin1', 0, bytesRead)).split('\n');
        pending = bytesRead === 0 ? '' : (lines.pop() ?? '');
        lines.forEach((line, i) => {
          this.take(line, i === 0 && carried ? earlier : before, littleEndian);
        });
        earlier = before;
        if (bytesRead === 0 || before.every((w) => w.found !== undefined)) break;
      }
      return total > 0;
    } catch {
      return false;
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
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
  /** Settles when the client closes its end: then it is gone, whatever a read would find. */
  readonly ended?: Promise<unknown>;
}

/**
 * Who holds the client ends of loopback connections to our `serverPort`. The kernel walks its
 * whole TCP hash table as `/proc/net/tcp` is read (milliseconds on a large machine, whatever it
 * lists), so the connections asked about at the same moment (Codex opens one per MCP server at
 * once) share one read, which stops once it has found them all; a connection it does not list is
 * looked for again in fresh reads. A process expected to hold the connection is looked at before
 * any other; then this process's descendants (where a session's Codex runs), then every process.
 * A peer that looks gone is looked for again: the kernel writes `/proc/net/tcp` a page at a time,
 * so a read while other sockets open and close can miss a live entry.
 */
export class TcpPeerFinder {
  /** The read under way, if any. */
  private running: TableRead | undefined;
  /** The next read, not yet begun: every look asked for meanwhile is answered by it. */
  private queued: TableRead | undefined;
  private readonly server: TcpEnd;

  /** `server`: the listening end every connection asked about reaches. */
  constructor(server: TcpEnd) {
    this.server = { address: canonicalAddress(server.address), port: server.port };
  }

  /** Who holds the end `client` of a connection to the server (both ends compared whole). */
  find(client: TcpEnd, hints: PeerHints = {}): Promise<TcpPeer> {
    if (hints.closed?.() === true) return Promise.resolve({ kind: 'gone' });
    const found = this.look(
      { address: canonicalAddress(client.address), port: client.port },
      hints,
    );
    // a client that closes its end meanwhile is gone at once, not after the reads
    return hints.ended === undefined
      ? found
      : Promise.race([found, hints.ended.then((): TcpPeer => ({ kind: 'gone' }))]);
  }

  private async look(end: TcpEnd, hints: PeerHints): Promise<TcpPeer> {
    const looks = Math.max(1, hints.looks ?? GONE_LOOKS);
    const running = this.running;
    if (running !== undefined) {
      const entry = await running.join(end);
      if (entry !== undefined) return this.owner(entry, hints, running);
    }
    for (let look = 0; look < looks; look++) {
      const read = this.queue();
      const entry = await read.want(end, hints.closed);
      if (entry === 'closed') return { kind: 'gone' };
      if (entry === 'unreadable') return { kind: 'unknown' };
      if (entry !== undefined) return this.owner(entry, hints, read);
    }
    return { kind: 'gone' };
  }

  private owner(entry: TcpEntry, hints: PeerHints, read: TableRead): TcpPeer {
    const within = hints.within;
    // the tree is walked only when the expected process does not hold it
    const tree = (): number[] => (within !== undefined ? [within, ...descendants(within)] : []);
    return ownerOf(`socket:[${String(entry.inode)}]`, hints.expect ?? [], tree, read);
  }

  /**
   * The next read: it begins once this turn's I/O is handled and no read is under way (one at a
   * time: reads side by side each walk the kernel's table), and answers every look asked for
   * before it begins, which lists every connection made before that.
   */
  private queue(): TableRead {
    if (this.queued === undefined) {
      this.queued = new TableRead(this.server);
      setImmediate(() => {
        this.begin();
      });
    }
    return this.queued;
  }

  private begin(): void {
    const read = this.queued;
    if (this.running !== undefined || read === undefined) return;
    this.queued = undefined;
    this.running = read;
    void read.run().finally(() => {
      this.running = undefined;
      this.begin();
    });
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
 * The process holding socket `link`: `expect` first, then `next` (a tree to look through), then
 * the processes of `tables`' read (one walk of /proc for all the connections it answers).
 */
function ownerOf(
  link: string,
  expect: readonly number[],
  next: () => Iterable<number>,
  tables: TableRead,
): TcpPeer {
  const stamped = (pid: number): TcpPeer => {
    const start = processStart(pid);
    return start === undefined ? { kind: 'gone' } : { kind: 'process', process: { pid, start } };
  };
  for (const pid of expect) if (holdsSocket(String(pid), link)) return stamped(pid);
  for (const pid of next()) if (holdsSocket(String(pid), link)) return stamped(pid);
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
