/**
 * The broker's side of the mesh socket protocol: one connection's newline-delimited JSON
 * requests. Until its `hello` is accepted a connection is unauthenticated (short line limit, then
 * cut off); after it, `watch_approvals`, `answer_approval` and the mesh methods are answered.
 */
import type { Duplex } from 'node:stream';

import { describeError } from '../../foundation/errors.js';
import {
  LineDecoder,
  MeshError,
  encodeLine,
  type BrokerRequest,
  type MeshCaller,
  MAX_HELLO_LINE_LENGTH,
  MAX_LINE_LENGTH,
} from '../protocol/mesh-protocol.js';

/** What the broker does for the requests of one connection. */
export interface ConnectionHandlers {
  /** The caller a `hello` authenticates (throws a MeshError to refuse it). */
  identify(params: Record<string, unknown>): MeshCaller;
  /** The accepted caller's connection opened; returns the `hello` result. */
  opened(caller: MeshCaller): unknown;
  /** Checks `watch_approvals` (throws to refuse) and returns how to subscribe to the pushes. */
  watchApprovals(caller: MeshCaller): (push: (value: unknown) => void) => () => void;
  answerApproval(caller: MeshCaller, params: Record<string, unknown>): unknown;
  dispatch(caller: MeshCaller, method: string, params: Record<string, unknown>): Promise<unknown>;
  /** The accepted caller's connection closed. */
  closed(caller: MeshCaller): void;
}

/** Serves `socket` (a connection, or an in-process stream) until it closes; then `untrack`. */
export function serveConnection(
  socket: Duplex,
  handlers: ConnectionHandlers,
  untrack: () => void,
): void {
  let caller: MeshCaller | undefined;
  let unwatch: (() => void) | undefined;
  const reply = (value: unknown): void => {
    if (!socket.destroyed) socket.write(encodeLine(value));
  };
  // answers at once, or returns the pending result of a mesh method; a refusal throws at once
  const answer = (
    request: BrokerRequest,
    params: Record<string, unknown>,
  ): Promise<unknown> | undefined => {
    if (request.method === 'hello') {
      if (caller !== undefined) throw new MeshError('invalid', 'hello was already sent');
      caller = handlers.identify(params);
      decoder.setMaxLineLength(MAX_LINE_LENGTH);
      reply({ id: request.id, result: handlers.opened(caller) });
      return undefined;
    }
    if (caller === undefined) throw new MeshError('invalid', 'send hello first');
    if (request.method === 'watch_approvals') {
      const subscribe = handlers.watchApprovals(caller);
      reply({ id: request.id, result: { watching: true } });
      unwatch ??= subscribe(reply);
      return undefined;
    }
    if (request.method === 'answer_approval') {
      reply({ id: request.id, result: handlers.answerApproval(caller, params) });
      return undefined;
    }
    return handlers.dispatch(caller, request.method, params);
  };
  const decoder = new LineDecoder(
    (value) => {
      if (typeof value !== 'object' || value === null) return;
      const request = value as BrokerRequest;
      if (typeof request.id !== 'number' || typeof request.method !== 'string') return;
      const params =
        typeof request.params === 'object' && (request.params as unknown) !== null
          ? request.params
          : {};
      void (async () => {
        try {
          const pending = answer(request, params);
          if (pending !== undefined) reply({ id: request.id, result: await pending });
        } catch (error) {
          const mesh =
            error instanceof MeshError ? error : new MeshError('failed', describeError(error));
          reply({ id: request.id, error: { code: mesh.code, message: mesh.message } });
        }
      })();
    },
    undefined,
    {
      // before hello a client is unauthenticated: a short line limit, then it is cut off
      maxLineLength: MAX_HELLO_LINE_LENGTH,
      onOverflow: () => socket.destroy(),
    },
  );
  socket.on('data', (chunk: Buffer) => {
    decoder.push(chunk);
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    untrack();
    unwatch?.();
    if (caller !== undefined) handlers.closed(caller);
  });
}
