/**
 * The Codex side of one gateway connection, as a `RelayConnection` uses it: send a message to
 * Codex, end the connection, and hear when Codex goes away. A relay's Unix socket and an MCP SDK
 * transport (a loopback Streamable HTTP session) each provide one, so both are held to the same
 * rules.
 */
import type { Socket } from 'node:net';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface CodexChannel {
  /** Sends one message to Codex (dropped once the channel is closed). */
  send(message: JSONRPCMessage): void;
  /** Ends the channel after what was sent (the server failed or is gone). */
  end(): void;
  /** Ends the channel now. */
  destroy(): void;
  /** Called once when the channel is gone, whichever side ended it. */
  onClose(listener: () => void): void;
}

/** A relay's connection: one JSON message a line. */
export function socketChannel(socket: Socket): CodexChannel {
  return {
    send(message) {
      if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
    },
    end() {
      socket.end();
    },
    destroy() {
      socket.destroy();
    },
    onClose(listener) {
      socket.on('close', listener);
    },
  };
}

/** An MCP SDK transport's session (messages in arrive through its `onmessage`). */
export function transportChannel(transport: Transport): CodexChannel {
  const listeners: (() => void)[] = [];
  let closed = false;
  const closeOnce = (): void => {
    if (closed) return;
    closed = true;
    for (const listener of listeners) listener();
  };
  transport.onclose = closeOnce;
  const end = (): void => {
    if (closed) return;
    void transport.close().catch(() => undefined);
    closeOnce();
  };
  return {
    send(message) {
      if (!closed) void transport.send(message).catch(() => undefined);
    },
    end,
    destroy: end,
    onClose(listener) {
      listeners.push(listener);
    },
  };
}
