/**
 * Limits on the connections a listener has accepted but that have not yet authenticated: each
 * gets a short time to do so and is closed after it, and at most `maxPending` wait at once — past
 * that the one waiting longest is closed at once, unread (a real client authenticates within
 * milliseconds). Loopback TCP peers are all 127.0.0.1 and a Unix socket's peer costs a lookup, so
 * the cap is per listener. The first time the cap is reached the flood is reported, once.
 */
import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/** Connections waiting to authenticate, per listener, before the oldest is closed. */
export const DEFAULT_MAX_PENDING = 64;
/** How long an accepted connection has to authenticate (ms). */
export const DEFAULT_AUTH_TIMEOUT_MS = 5_000;
/** How long an HTTP listener waits for a whole request (ms); its response may take any time. */
const HTTP_REQUEST_TIMEOUT_MS = 120_000;
/** How long an authenticated HTTP connection may sit idle between requests (Node's default). */
const HTTP_KEEP_ALIVE_MS = 5_000;

/** A listener that reached its cap of unauthenticated connections (never holds a token). */
export interface ListenerFlood {
  /** The listener's name (`gateway-http`, `model-wire`, `approval-socket`, …). */
  readonly listener: string;
  /** The cap that was reached. */
  readonly limit: number;
  /** Unauthenticated connections closed so far: past the cap or out of time. */
  readonly closed: number;
}

export interface ConnectionLimitOptions {
  /** Default DEFAULT_MAX_PENDING. */
  readonly maxPending?: number;
  /** Default DEFAULT_AUTH_TIMEOUT_MS. */
  readonly authTimeoutMs?: number;
  /** Told once, when the cap is first reached; `closed` keeps counting afterwards. */
  readonly onFlood?: (flood: ListenerFlood) => void;
}

/** The limits of one listener: `admit` each accepted socket, `authenticated` once it has. */
export class ConnectionLimits implements ListenerFlood {
  readonly limit: number;
  readonly authTimeoutMs: number;
  private readonly pending = new Map<Socket, NodeJS.Timeout>();
  private closedCount = 0;
  private reported = false;

  constructor(
    readonly listener: string,
    private readonly options: ConnectionLimitOptions = {},
  ) {
    this.limit = Math.max(1, options.maxPending ?? DEFAULT_MAX_PENDING);
    this.authTimeoutMs = Math.max(1, options.authTimeoutMs ?? DEFAULT_AUTH_TIMEOUT_MS);
  }

  get closed(): number {
    return this.closedCount;
  }

  /** Connections waiting to authenticate now. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Whether the cap has been reached at some point. */
  get flooded(): boolean {
    return this.reported;
  }

  /** Starts `socket`'s time to authenticate; at the cap, the oldest waiting one is closed. */
  admit(socket: Socket): void {
    if (this.pending.size >= this.limit) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.drop(oldest);
      if (!this.reported) {
        this.reported = true;
        this.options.onFlood?.(this);
      }
    }
    const timer = setTimeout(() => {
      this.drop(socket);
    }, this.authTimeoutMs);
    timer.unref();
    this.pending.set(socket, timer);
    socket.once('close', () => {
      this.release(socket);
    });
  }

  /** `socket` proved who it is: it is no longer timed or counted. */
  authenticated(socket: Socket): void {
    this.release(socket);
  }

  private release(socket: Socket): void {
    const timer = this.pending.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.pending.delete(socket);
  }

  private drop(socket: Socket): void {
    this.release(socket);
    this.closedCount += 1;
    socket.destroy();
  }
}

/**
 * The node:http timeouts of a listener: the headers of every request must arrive within the time
 * to authenticate and the whole request within two minutes; a response (an event stream, a
 * streamed model answer) is never timed, and an idle keep-alive connection lasts 5 s.
 */
export function httpTimeouts(limits: ConnectionLimits): ServerOptions {
  const headers = limits.authTimeoutMs;
  return {
    headersTimeout: headers,
    requestTimeout: Math.max(HTTP_REQUEST_TIMEOUT_MS, headers),
    keepAliveTimeout: HTTP_KEEP_ALIVE_MS,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headers / 2))),
  };
}
