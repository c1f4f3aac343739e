/**
 * The relay: what Codex starts as a Tool MCP server (`codex-mmo gateway connect`). It holds no
 * credential and no server definition; it connects to the session gateway's Unix socket — only
 * one of this user's, in a private directory of this user (socket-listener; the supervisor
 * itself is out of sight from Codex's PID namespace) — presents its one-time token, and after
 * the gateway's `ready` copies bytes both ways — Codex's stdin to the gateway, the gateway's
 * answers to Codex's stdout — until either side ends.
 */
import { createConnection, type Socket } from 'node:net';

import { ListenerNotVerifiedError } from '../../foundation/errors.js';
import { checkSocketPlace } from '../../foundation/process/socket-listener.js';

import { CONTROL_KEY, isControlLine } from './gateway-protocol.js';

export interface RelayOptions {
  readonly socketPath: string;
  readonly server: string;
  readonly process: string;
  readonly token: string;
  /** The relay process's pid, sent in its hello. */
  readonly pid?: number;
  /** The PID namespace that `pid` is an id in. */
  readonly pidNs?: string | undefined;
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  /** One line per problem, for Codex's log of the server's stderr. */
  readonly stderr: (text: string) => void;
}

/** Runs the relay to its end; the exit status for the process (0 when Codex ended it). */
export async function runRelay(options: RelayOptions): Promise<number> {
  const say = (text: string): void => {
    options.stderr(`codex-mmo gateway: ${text}\n`);
  };
  let socket: Socket;
  try {
    await checkSocketPlace(options.socketPath);
    socket = await new Promise<Socket>((resolve, reject) => {
      const s = createConnection(options.socketPath);
      s.once('connect', () => {
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
  } catch (error) {
    if (error instanceof ListenerNotVerifiedError) {
      say(`refused: ${error.message}`);
      return 1;
    }
    say(
      `the session gateway at ${options.socketPath} is not reachable (${error instanceof Error ? error.message : String(error)}); the session may have ended`,
    );
    return 1;
  }
  socket.write(
    `${JSON.stringify({ [CONTROL_KEY]: 'hello', token: options.token, server: options.server, process: options.process, ...(options.pid !== undefined ? { pid: options.pid } : {}), ...(options.pidNs !== undefined ? { pid_ns: options.pidNs } : {}) })}\n`,
  );
  return new Promise<number>((resolve) => {
    let head: Buffer[] = [];
    let ready = false;
    let stdinEnded = false;
    let settled = false;
    const finish = (code: number): void => {
      if (settled) return;
      settled = true;
      resolve(code);
    };
    const onHead = (chunk: Buffer): void => {
      head.push(chunk);
      const bytes = Buffer.concat(head);
      const newline = bytes.indexOf(0x0a);
      if (newline === -1) return;
      socket.off('data', onHead);
      head = [];
      let control: unknown;
      try {
        control = JSON.parse(bytes.subarray(0, newline).toString('utf8'));
      } catch {
        control = undefined;
      }
      if (!isControlLine(control) || control[CONTROL_KEY] !== 'ready') {
        const message =
          isControlLine(control) && control[CONTROL_KEY] === 'refused'
            ? control.message
            : 'the gateway answered something unexpected';
        say(`refused: ${message}`);
        socket.destroy();
        finish(1);
        return;
      }
      ready = true;
      const rest = bytes.subarray(newline + 1);
      if (rest.length > 0) options.stdout.write(rest);
      socket.pipe(options.stdout, { end: false });
      options.stdin.pipe(socket);
    };
    socket.on('data', onHead);
    options.stdin.on('end', () => {
      stdinEnded = true;
      if (!ready) socket.end();
    });
    socket.on('error', () => {
      socket.destroy();
    });
    socket.on('close', () => {
      if (!ready && !settled) say('the gateway closed the connection before it was ready');
      finish(stdinEnded ? 0 : 1);
    });
  });
}
