/**
 * A client's check of who listens on a session's Unix socket, made before it sends anything
 * secret (a mesh credential, a proof of the approval key): the socket must be this user's, in a
 * private directory of this user (private-socket), and every process holding the other end of
 * the connection — the kernel's word (unix-peer), not the listener's — must be the expected one,
 * by pid and start time. Anything else, or a check that cannot be made, fails closed with
 * `ListenerNotVerifiedError`; the caller then sends nothing.
 */
import { lstat } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { dirname } from 'node:path';

import { ListenerNotVerifiedError, describeError } from '../errors.js';
import { privateDirProblem } from './private-socket.js';
import { processStart, type ProcessStamp } from './tcp-peer.js';
import { peerProcesses } from './unix-peer.js';

export type { ProcessStamp };

/** The listener a client expects: the process that serves the socket (pid and start time). */
export interface ExpectedListener {
  readonly pid: number;
  /** Its start time (`/proc/<pid>/stat` field 22); undefined refuses every listener. */
  readonly start: string | undefined;
}

/** This process, as the listener of a socket it serves itself (undefined start without /proc). */
export function thisProcess(): ExpectedListener {
  return { pid: process.pid, start: processStart(process.pid) };
}

/** How long a client waits for the listener to accept its connection before refusing (ms). */
const ACCEPT_WAIT_MS = 2_000;

function refuse(path: string, why: string, cause?: unknown): ListenerNotVerifiedError {
  return new ListenerNotVerifiedError(
    path,
    `the listener on ${path} is not verified as the session's own (${why}); nothing was sent to it`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Refuses a socket that is not this user's, or whose directory is not private to this user;
 * rejects with the file system's own error when there is no socket at `path` (nobody listens).
 */
export async function checkSocketPlace(path: string): Promise<void> {
  const info = await lstat(path).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
    throw refuse(path, `it cannot be examined: ${describeError(error)}`, error);
  });
  const problem = await privateDirProblem(dirname(path));
  if (problem !== undefined) throw refuse(path, problem);
  if (!info.isSocket()) throw refuse(path, 'it is not a socket');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && info.uid !== uid) {
    throw refuse(path, `the socket belongs to uid ${String(info.uid)}, not to this user`);
  }
}

/**
 * Refuses a connected `socket` unless the process holding its other end is `expected` and nobody
 * else holds it. Waits up to `acceptWaitMs` for the listener to accept the connection, and for
 * any other holder to let go (a child the listener forks holds its descriptors until it execs).
 */
export async function checkListener(
  socket: Socket,
  path: string,
  expected: ExpectedListener,
  acceptWaitMs = ACCEPT_WAIT_MS,
): Promise<void> {
  if (expected.start === undefined) {
    throw refuse(path, `the start time of the expected process ${String(expected.pid)} is unknown`);
  }
  if (processStart(expected.pid) !== expected.start) {
    throw refuse(path, `the expected process ${String(expected.pid)} is no longer running`);
  }
  const deadline = Date.now() + acceptWaitMs;
  for (;;) {
    const pids = await peerProcesses(socket);
    if (pids === undefined) {
      throw refuse(
        path,
        "the kernel's socket table cannot be read (Linux with `ss` from iproute2 is needed)",
      );
    }
    const others = pids.filter((pid) => pid !== expected.pid);
    // a child the listener is starting holds its descriptors from fork to exec: look again
    if (others.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      continue;
    }
    if (pids.length > 0) {
      if (others.length > 0) {
        throw refuse(
          path,
          `it is held by process ${others.map(String).join(', ')}, not by process ${String(expected.pid)}`,
        );
      }
      // the pid is still the process that started then: not a stranger that reused it
      if (processStart(expected.pid) !== expected.start) {
        throw refuse(path, `process ${String(expected.pid)} is not the expected one any more`);
      }
      return;
    }
    if (Date.now() >= deadline) {
      throw refuse(path, 'no process of this user in sight accepted the connection');
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Connects to `path` and verifies its listener (checkSocketPlace, checkListener); resolves with
 * the connected socket, with nothing sent on it yet. Rejects with ListenerNotVerifiedError when
 * the listener is not verified, with the connection error when nobody listens.
 */
export async function connectVerified(path: string, expected: ExpectedListener): Promise<Socket> {
  await checkSocketPlace(path);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = createConnection(path);
    s.once('connect', () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
  // a reset while the check runs must not become an unhandled 'error'
  const ignore = (): undefined => undefined;
  socket.on('error', ignore);
  try {
    await checkListener(socket, path, expected);
    if (socket.destroyed) throw refuse(path, 'the listener closed the connection');
  } catch (error) {
    socket.destroy();
    throw error;
  } finally {
    socket.off('error', ignore);
  }
  return socket;
}
