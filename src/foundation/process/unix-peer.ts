/**
 * Who is at the other end of a Unix socket connection (an accepted one, or a client's: then the
 * listener), from the kernel rather than from anything the peer says: Node has no SO_PEERCRED, so the socket's inode (via
 * /proc/self/fd) is looked up with `ss -xpn` (sock_diag), which names the peer socket and the
 * processes holding it; /proc gives their uid and PID namespace. Linux only; undefined when any
 * step is unavailable (no `ss`, no /proc, the peer already gone).
 */
import { execFile } from 'node:child_process';
import { readFile, readlink } from 'node:fs/promises';
import type { Socket } from 'node:net';

export interface UnixPeer {
  /** Processes holding the peer's end (a forked child may share it). */
  readonly pids: readonly number[];
  /** Real uid of the first of them. */
  readonly uid: number;
  /** That uid's login name (from /etc/passwd), or `uid N`. */
  readonly user: string;
  /** True when one of them is in another PID namespace than this process (a sandbox). */
  readonly otherPidNamespace: boolean;
}

interface SsLine {
  readonly local: number;
  readonly peer: number;
  readonly pids: number[];
}

/** Parses `ss -xpnH` output into (local inode, peer inode, pids); pure. */
export function parseSsUnix(text: string): SsLine[] {
  const out: SsLine[] = [];
  for (const raw of text.split('\n')) {
    const users = /\susers:\((.*)\)\s*$/.exec(raw);
    const rest = (users === null ? raw : raw.slice(0, users.index)).trim().split(/\s+/);
    if (rest.length < 6) continue;
    const peer = Number(rest.at(-1));
    const local = Number(rest.at(-3));
    if (!Number.isInteger(peer) || !Number.isInteger(local)) continue;
    const pids = [...(users?.[1] ?? '').matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
    out.push({ local, peer, pids });
  }
  return out;
}

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 10_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error !== null) reject(new Error(error.message));
      else resolve(stdout);
    });
  });
}

async function inodeOf(link: string): Promise<number | undefined> {
  const target = await readlink(link).catch(() => '');
  const match = /^socket:\[(\d+)\]$/.exec(target);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

async function uidOf(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8').catch(() => '');
  const match = /^Uid:\s+(\d+)/m.exec(status);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** The login name of `uid` from /etc/passwd, or `uid N`. */
export async function userOfUid(uid: number): Promise<string> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  for (const line of passwd.split('\n')) {
    const fields = line.split(':');
    if (fields[2] === String(uid) && fields[0] !== undefined && fields[0] !== '') return fields[0];
  }
  return `uid ${String(uid)}`;
}

/**
 * The processes holding the other end of `socket` (an accepted connection, or a client's connected
 * one: then the listener that accepted it), by the kernel's socket table. Empty while nobody
 * holds it (a connection not yet accepted or not yet in the table, a process of another user or
 * out of sight in /proc); undefined when the table cannot be read (no `ss`, no /proc, the socket
 * closed).
 */
export async function peerProcesses(socket: Socket): Promise<number[] | undefined> {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) return undefined;
  const local = await inodeOf(`/proc/self/fd/${String(fd)}`);
  if (local === undefined) return undefined;
  const text = await run('ss', ['-xpnH']).catch(() => undefined);
  if (text === undefined) return undefined;
  const lines = parseSsUnix(text);
  const peerInode = lines.find((l) => l.local === local)?.peer;
  // not in the table yet, or no peer yet (a connection still in the listener's backlog)
  if (peerInode === undefined || peerInode === 0) return [];
  return [...new Set(lines.filter((l) => l.local === peerInode).flatMap((l) => l.pids))];
}

/** The peer of `socket` (an accepted connection of a Unix socket server), or undefined. */
export async function unixPeer(socket: Socket): Promise<UnixPeer | undefined> {
  const pids = await peerProcesses(socket);
  const first = pids?.[0];
  if (pids === undefined || first === undefined) return undefined;
  const uid = await uidOf(first);
  if (uid === undefined) return undefined;
  const own = await readlink('/proc/self/ns/pid').catch(() => '');
  const spaces = await Promise.all(
    pids.map((p) => readlink(`/proc/${String(p)}/ns/pid`).catch(() => own)),
  );
  return {
    pids,
    uid,
    user: await userOfUid(uid),
    otherPidNamespace: own !== '' && spaces.some((s) => s !== own),
  };
}
