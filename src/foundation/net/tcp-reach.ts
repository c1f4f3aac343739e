/**
 * Whether a TCP address accepts a connection within a time limit: the name looked up and one
 * connection opened and closed at once, nothing sent. For a fast, bounded check of an address a
 * session is about to depend on.
 */
import { connect } from 'node:net';

export type Reach = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Tries `host:port` once; never rejects. */
export function tcpReach(host: string, port: number, timeoutMs: number): Promise<Reach> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (reach: Reach): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reach);
    };
    const timer = setTimeout(() => {
      done({ ok: false, reason: `no answer within ${String(timeoutMs)} ms` });
    }, timeoutMs);
    socket.once('connect', () => {
      done({ ok: true });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      done({ ok: false, reason: error.code ?? error.message });
    });
  });
}

/** The host and port of an http(s) URL (its default port when none is written). */
export function addressOf(url: string): { host: string; port: number } | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    const port = parsed.port !== '' ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}
