/**
 * A flood of idle connections, as a hostile shell with network opens them: each connects to a
 * listener (loopback TCP port or Unix socket path) and never sends a byte. Counts how many are
 * open from the client side; a connection the listener closes counts as closed once the client
 * sees its end.
 */
import { createConnection, type Socket } from 'node:net';

export interface Flood {
  /** Connections connected and not yet closed. */
  open(): number;
  /** Connections that were connected and then closed (by the listener, unless `end` ran). */
  closed(): number;
  /** Opens `count` more idle connections and waits until each has connected or failed. */
  more(count: number): Promise<void>;
  /** Closes every connection still open. */
  end(): void;
}

/** A flood against `target`: a port on 127.0.0.1 or a Unix socket path. */
export function flood(target: number | string): Flood {
  const sockets = new Set<Socket>();
  let open = 0;
  let closed = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const socket =
        typeof target === 'number'
          ? createConnection({ port: target, host: '127.0.0.1' })
          : createConnection(target);
      sockets.add(socket);
      let connected = false;
      socket.on('connect', () => {
        connected = true;
        open += 1;
        resolve();
      });
      socket.on('data', () => undefined);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        if (connected) {
          open -= 1;
          closed += 1;
        }
        resolve();
      });
    });
  return {
    open: () => open,
    closed: () => closed,
    more: async (count) => {
      await Promise.all(Array.from({ length: count }, one));
    },
    end: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A newline-delimited JSON client of a Unix socket: `next()` is the next line it received. */
export interface LineClient {
  send(value: unknown): void;
  next(): Promise<unknown>;
  close(): void;
}

export function lineClient(path: string): Promise<LineClient> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const lines: unknown[] = [];
    const waiting: ((value: unknown) => void)[] = [];
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const value: unknown = JSON.parse(buffer.slice(0, at));
        buffer = buffer.slice(at + 1);
        const take = waiting.shift();
        if (take !== undefined) take(value);
        else lines.push(value);
      }
    });
    socket.once('error', reject);
    socket.once('connect', () => {
      resolve({
        send: (value) => socket.write(`${JSON.stringify(value)}\n`),
        next: () =>
          lines.length > 0
            ? Promise.resolve(lines.shift())
            : new Promise((take) => waiting.push(take)),
        close: () => socket.destroy(),
      });
    });
  });
}
