/**
 * The session's approval socket: a Unix socket (mode 0600, in the private session directory, or
 * a short private path when that would be too long) on which the supervising process answers
 * `list` and `answer` requests from `codex-mmo session approvals|approve|deny` run by the same
 * user in any terminal. One JSON object per line each way. The client side is `askSupervisor`.
 */
import { mkdir, unlink } from 'node:fs/promises';
import { createConnection, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

import { describeError } from '../errors.js';
import { LineDecoder, encodeLine } from '../mesh/mesh-protocol.js';
import type { ApprovalQueue } from './approval-queue.js';
import type { ApprovalAnswer, PendingApproval } from './approval-types.js';
import { listenPrivateSocket } from '../process/private-socket.js';

/** Longest Unix socket path used (the OS limit is 104–108 bytes). */
const MAX_SOCKET_PATH = 100;

/** `<session>/approvals.sock`, or `<tmp>/codex-mmo-<id>/approvals.sock` when that is too long. */
export function approvalSocketPath(sessionDir: string, sessionId: string, tmpDir: string): string {
  const inSession = join(sessionDir, 'approvals.sock');
  if (Buffer.byteLength(inSession) <= MAX_SOCKET_PATH) return inSession;
  return join(tmpDir, `codex-mmo-${sessionId}`, 'approvals.sock');
}

export type SocketRequest =
  | { readonly method: 'list' }
  | {
      readonly method: 'answer';
      readonly request: string;
      readonly decision: 'approve' | 'deny';
      readonly user: string;
      readonly reason?: string;
    };

export type SocketReply =
  | { readonly approvals: PendingApproval[] }
  | { readonly answer: ApprovalAnswer; readonly request: PendingApproval }
  | { readonly error: { readonly code: string; readonly message: string } };

function handle(queue: ApprovalQueue, value: unknown): SocketReply {
  if (typeof value !== 'object' || value === null) {
    return { error: { code: 'invalid', message: 'expected a JSON object' } };
  }
  const request = value as Record<string, unknown>;
  if (request.method === 'list') return { approvals: queue.pending() };
  if (request.method === 'answer') {
    const id = request.request;
    const decision = request.decision;
    const user = request.user;
    const reason = request.reason;
    if (
      typeof id !== 'string' ||
      (decision !== 'approve' && decision !== 'deny') ||
      typeof user !== 'string' ||
      (reason !== undefined && typeof reason !== 'string')
    ) {
      return { error: { code: 'invalid', message: 'malformed answer' } };
    }
    const result = queue.answer(id, decision, user, 'cli', reason);
    return result.ok
      ? { answer: result.answer, request: result.request }
      : { error: { code: result.reason, message: result.message } };
  }
  return { error: { code: 'invalid', message: 'unknown method' } };
}

export class ApprovalSocket {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    readonly path: string,
  ) {}

  /** Listens on `path` (a stale socket file there is replaced) for `queue`. */
  static async listen(queue: ApprovalQueue, path: string): Promise<ApprovalSocket> {
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    const sockets = new Set<Socket>();
    const server = await listenPrivateSocket(path, (socket) => {
      sockets.add(socket);
      const decoder = new LineDecoder((value) => {
        if (!socket.destroyed) socket.write(encodeLine(handle(queue, value)));
      });
      socket.on('data', (chunk: Buffer) => {
        decoder.push(chunk);
      });
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    });
    return new ApprovalSocket(server, sockets, path);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
    await unlink(this.path).catch(() => undefined);
  }
}

/** Sends one request to a supervisor's approval socket; rejects when it cannot be reached. */
export function askSupervisor(
  path: string,
  request: SocketRequest,
  timeoutMs = 5_000,
): Promise<SocketReply> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (error?: Error, reply?: SocketReply): void => {
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) reject(error);
      else if (reply !== undefined) resolve(reply);
    };
    const decoder = new LineDecoder((value) => {
      done(undefined, value as SocketReply);
    });
    socket.on('connect', () => socket.write(encodeLine(request)));
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
    });
    socket.on('error', (error) => {
      done(new Error(`cannot reach ${path}: ${describeError(error)}`));
    });
    socket.on('close', () => {
      done(new Error(`${path} closed the connection without answering`));
    });
  });
}
