/**
 * The session's approval socket: a Unix socket (mode 0600, in the private session directory, or
 * a short private path when that would be too long) on which the supervising process answers
 * one `list` or `answer` request per connection. The model's shell runs as the same OS user and,
 * with network on, can connect; so a request counts only with a proof of the session's approval
 * key (approval-auth), and an answer only from a process outside the session's sandboxes
 * (another PID namespace is refused). Who answered comes from the connection's peer, never from
 * the message; anything else is refused and reported. A connection that sends no proven request
 * in time, or past the cap of those waiting, is closed (connection-limits). The client side is
 * `askSupervisor` (approval-client).
 */
import { unlink } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';

import { LineDecoder, MAX_HELLO_LINE_LENGTH, encodeLine } from '../protocol/mesh-protocol.js';
import { listenPrivateSocket, sessionSocketDir } from '../../foundation/process/private-socket.js';
import {
  ConnectionLimits,
  type ConnectionLimitOptions,
} from '../../foundation/process/connection-limits.js';
import { unixPeer, type UnixPeer } from '../../foundation/process/unix-peer.js';
import { newNonce, proofMatches, replyProof, requestProof } from './approval-auth.js';
import type { ApprovalQueue } from './approval-queue.js';
import { handleRequest, refusal, type Refusal, type SocketReply } from './approval-wire.js';

export type { SocketReply, SocketRequest, Refusal } from './approval-wire.js';

/** Longest Unix socket path used (the OS limit is 104–108 bytes). */
const MAX_SOCKET_PATH = 100;

/** `<session>/approvals.sock`, or `<tmp>/codex-mmo-<id>/approvals.sock` when that is too long. */
export function approvalSocketPath(sessionDir: string, sessionId: string, tmpDir: string): string {
  const inSession = join(sessionDir, 'approvals.sock');
  if (Buffer.byteLength(inSession) <= MAX_SOCKET_PATH) return inSession;
  return join(sessionSocketDir(tmpDir, sessionId), 'approvals.sock');
}

export interface ApprovalSocketOptions {
  /** The session's approval key (approval-auth). */
  readonly key: Buffer;
  /**
   * Recorded as the answerer when the peer cannot be looked up: the socket's owner, since a
   * 0600 socket in a 0700 directory admits only that OS user (or root).
   */
  readonly owner: string;
  /** Hears of every refused connection (nothing secret in it). */
  readonly onRefused?: (refused: Refusal) => void;
  /** How the peer of a connection is found (default: the kernel's, via `ss` and /proc). */
  readonly peerOf?: (socket: Socket) => Promise<UnixPeer | undefined>;
  /** Limits on connections that have not yet sent a proven request. */
  readonly limits?: ConnectionLimitOptions;
}

/** The approval socket's name in a flood report. */
export const APPROVAL_SOCKET_LISTENER = 'approval-socket';

export class ApprovalSocket {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    readonly path: string,
  ) {}

  /** Listens on `path` (a stale socket file there is replaced) for `queue`. */
  static async listen(
    queue: ApprovalQueue,
    path: string,
    options: ApprovalSocketOptions,
  ): Promise<ApprovalSocket> {
    const sockets = new Set<Socket>();
    const lookups = { refused: 0 };
    const limits = new ConnectionLimits(APPROVAL_SOCKET_LISTENER, options.limits);
    const server = await listenPrivateSocket(path, (socket) => {
      limits.admit(socket);
      sockets.add(socket);
      serve(queue, socket, options, lookups, () => {
        limits.authenticated(socket);
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

/** Refused connections whose peer is looked up (each lookup runs `ss`); later ones are not. */
const MAX_REFUSED_LOOKUPS = 64;

/** One connection: a challenge, one proven request, one signed reply, then the end. */
function serve(
  queue: ApprovalQueue,
  socket: Socket,
  options: ApprovalSocketOptions,
  lookups: { refused: number },
  proven: () => void,
): void {
  const challenge = newNonce();
  let used = false;
  const peerOf = options.peerOf ?? unixPeer;
  const refuse = async (code: Refusal['code'], value: unknown): Promise<void> => {
    lookups.refused += 1;
    const peer =
      lookups.refused <= MAX_REFUSED_LOOKUPS
        ? await peerOf(socket).catch(() => undefined)
        : undefined;
    const refused = refusal(code, value, peer);
    options.onRefused?.(refused);
    socket.end(encodeLine({ error: { code, message: refused.message } }));
  };
  const decoder = new LineDecoder(
    (value) => {
      if (used) return;
      used = true;
      void (async () => {
        const line = value as Record<string, unknown> | null;
        const body = typeof line === 'object' && line !== null ? line.body : undefined;
        const nonce = typeof line === 'object' && line !== null ? line.nonce : undefined;
        if (typeof body !== 'string' || typeof nonce !== 'string' || nonce.length > 200) {
          await refuse('unauthenticated', value);
          return;
        }
        if (!proofMatches(line?.proof, requestProof(options.key, challenge, nonce, body))) {
          await refuse('unauthenticated', parsed(body));
          return;
        }
        proven();
        const request = parsed(body);
        // an answer is recorded with its peer; a list (polled by the CLI) needs the key only
        const peer = isAnswer(request) ? await peerOf(socket).catch(() => undefined) : undefined;
        if (peer?.otherPidNamespace === true) {
          await refuse('sandboxed-caller', request);
          return;
        }
        const reply: SocketReply = handleRequest(queue, request, peer?.user ?? options.owner);
        const text = JSON.stringify(reply);
        const proof = replyProof(options.key, challenge, nonce, text);
        if (!socket.destroyed) socket.end(encodeLine({ body: text, proof }));
      })();
    },
    undefined,
    { maxLineLength: MAX_HELLO_LINE_LENGTH, onOverflow: () => socket.destroy() },
  );
  socket.on('data', (chunk: Buffer) => {
    decoder.push(chunk);
  });
  socket.write(encodeLine({ challenge }));
}

function isAnswer(request: unknown): boolean {
  return (
    typeof request === 'object' &&
    request !== null &&
    (request as Record<string, unknown>).method === 'answer'
  );
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}
