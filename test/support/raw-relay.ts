/**
 * A gateway relay (`codex-mmo gateway connect`) as the tests start it for a root process's route,
 * and a JSON-RPC client that writes raw lines to one: for requests an SDK client would not send.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

import { CLI, waitFor } from './world.js';

/** The relay's command line for `server` of process `root`, its token in `GW_TOKEN`. */
export function relayArgs(socketPath: string, server: string): string[] {
  return [
    CLI,
    'gateway',
    'connect',
    '--socket',
    socketPath,
    '--process',
    'root',
    '--server',
    server,
    '--token-env',
    'GW_TOKEN',
  ];
}

/** The relay's environment: nothing but PATH and the token. */
export function relayEnv(token: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', GW_TOKEN: token };
}

/** A JSON-RPC client writing raw lines to a relay process. */
export class RawRelayClient {
  readonly received: Record<string, unknown>[] = [];
  private buffer = '';

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (d: Buffer) => {
      this.buffer += d.toString();
      let at: number;
      while ((at = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, at);
        this.buffer = this.buffer.slice(at + 1);
        if (line.trim() !== '') this.received.push(JSON.parse(line) as Record<string, unknown>);
      }
    });
  }

  /** A relay for `server`, with `token`. */
  static connect(socketPath: string, server: string, token: string): RawRelayClient {
    const child = spawn(process.execPath, relayArgs(socketPath, server), {
      env: relayEnv(token),
      stdio: 'pipe',
    });
    return new RawRelayClient(child);
  }

  /** Writes `message` as one line (a string as it is). */
  send(message: unknown): void {
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  async request(id: number, method: string, params?: unknown): Promise<Record<string, unknown>> {
    this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    await waitFor(() => this.received.some((m) => m.id === id), 15_000);
    return this.received.find((m) => m.id === id) ?? {};
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill('SIGTERM');
  }
}
