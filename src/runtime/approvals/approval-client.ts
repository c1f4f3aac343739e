/**
 * The caller's side of a session's approval socket (`codex-mmo session approvals|approve|deny`
 * in any terminal of the user outside the session): verifies that the listener is the session's
 * supervisor (socket-listener) before it reads anything, waits for the server's challenge, sends
 * one request with its proof of the session's approval key, and accepts a reply only with the
 * server's proof — so neither side of a captured exchange can be replayed, and a socket that is
 * not the session's gets no proof and cannot pass off an answer. A refusal arrives as an
 * (unproven) error reply.
 */
import type { Socket } from 'node:net';

import { ListenerNotVerifiedError, describeError } from '../../foundation/errors.js';
import {
  connectVerified,
  type ExpectedListener,
} from '../../foundation/process/socket-listener.js';
import { LineDecoder, encodeLine } from '../protocol/mesh-protocol.js';
import { newNonce, proofMatches, replyProof, requestProof } from './approval-auth.js';
import type { SocketReply, SocketRequest } from './approval-wire.js';

function isErrorReply(value: Record<string, unknown>): value is SocketReply & { error: object } {
  const error: unknown = value.error;
  if (typeof error !== 'object' || error === null) return false;
  const fields = error as Record<string, unknown>;
  return typeof fields.code === 'string' && typeof fields.message === 'string';
}

/**
 * Sends one request to a supervisor's approval socket, once `supervisor` is verified as its
 * listener (else ListenerNotVerifiedError, with nothing sent); rejects when it cannot be reached.
 */
export async function askSupervisor(
  path: string,
  supervisor: ExpectedListener,
  key: Buffer,
  request: SocketRequest,
  timeoutMs = 5_000,
): Promise<SocketReply> {
  const socket = await connectVerified(path, supervisor).catch((error: unknown) => {
    if (error instanceof ListenerNotVerifiedError) throw error;
    throw new Error(`cannot reach ${path}: ${describeError(error)}`);
  });
  return exchange(socket, path, key, request, timeoutMs);
}

/** The challenge, the proven request and the proven reply on a verified connection. */
function exchange(
  socket: Socket,
  path: string,
  key: Buffer,
  request: SocketRequest,
  timeoutMs: number,
): Promise<SocketReply> {
  return new Promise((resolve, reject) => {
    const nonce = newNonce();
    const body = JSON.stringify(request);
    let challenge: string | undefined;
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
      const line = (typeof value === 'object' && value !== null ? value : {}) as Record<
        string,
        unknown
      >;
      if (challenge === undefined) {
        if (typeof line.challenge !== 'string') {
          done(new Error(`${path} did not send a challenge`));
          return;
        }
        challenge = line.challenge;
        socket.write(encodeLine({ body, nonce, proof: requestProof(key, challenge, nonce, body) }));
        return;
      }
      if (typeof line.body === 'string') {
        if (!proofMatches(line.proof, replyProof(key, challenge, nonce, line.body))) {
          done(new Error(`${path} did not prove it holds this session's approval key`));
          return;
        }
        done(undefined, JSON.parse(line.body) as SocketReply);
        return;
      }
      if (isErrorReply(line)) done(undefined, line);
      else done(new Error(`${path} sent an unexpected reply`));
    });
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
