/**
 * The reference `server-everything` over Streamable HTTP for one suite:
 * `const everything = useEverythingHttp()` starts it on a free loopback port in `beforeAll` (its
 * received request headers logged to `everything.headersFile`) and kills it in `afterAll`,
 * waiting until the process is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { afterAll, beforeAll } from 'vitest';

import { EVERYTHING_HTTP, processGone } from './probe-helpers.js';
import { tmpDir } from './tmp.js';

export interface EverythingHttp {
  /** The port it listens on (from `beforeAll` on). */
  readonly port: number;
  /** The JSON-lines file of the headers of every request it received. */
  readonly headersFile: string;
}

/** Waits for the `LISTENING <port>` line the server writes to stderr. */
function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      reject(new Error(`server-everything did not start: ${text}`));
    }, 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /LISTENING (\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${String(code)}: ${text}`));
    });
  });
}

/** Serves server-everything over Streamable HTTP for the enclosing suite (see the header). */
export function useEverythingHttp(): EverythingHttp {
  let server: ChildProcess | undefined;
  const state = { port: 0, headersFile: '' };
  beforeAll(async () => {
    state.headersFile = join(await tmpDir(), 'headers.jsonl');
    server = spawn(process.execPath, [EVERYTHING_HTTP], {
      env: { PATH: process.env.PATH, PORT: '0', HEADERS_FILE: state.headersFile },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    state.port = await listeningPort(server);
  });
  afterAll(async () => {
    const pid = server?.pid;
    server?.kill('SIGKILL');
    if (pid !== undefined) {
      for (let i = 0; i < 100 && !(await processGone(pid)); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return state;
}
