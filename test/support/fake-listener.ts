/**
 * A listener that is not the session's: a child Node process (another process of the same user,
 * as a hostile shell would start) that removes whatever is at a socket path, listens there,
 * optionally greets each connection with a line, and records every byte it receives.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface FakeListener {
  readonly pid: number;
  /** Everything received so far, over all connections. */
  received(): string;
  /** How many connections it accepted. */
  accepted(): number;
  stop(): Promise<void>;
}

const SCRIPT = `
const net = require('node:net');
const fs = require('node:fs');
const [path, greeting] = process.argv.slice(1);
try { fs.unlinkSync(path); } catch {}
const server = net.createServer((socket) => {
  process.stdout.write(JSON.stringify({ accepted: true }) + '\\n');
  if (greeting !== '') socket.write(greeting + '\\n');
  socket.on('data', (d) => process.stdout.write(JSON.stringify({ data: d.toString('base64') }) + '\\n'));
  socket.on('error', () => {});
});
server.listen(path, () => process.stdout.write(JSON.stringify({ ready: true }) + '\\n'));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

/** Starts a fake listener at `path` (replacing what is there); resolves once it listens. */
export async function startFakeListener(path: string, greeting = ''): Promise<FakeListener> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT, path, greeting], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let received = '';
  let accepted = 0;
  let buffered = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      reject(new Error(`the fake listener exited with ${String(code)}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const event = JSON.parse(line) as { ready?: true; accepted?: true; data?: string };
        if (event.ready === true) resolve();
        if (event.accepted === true) accepted++;
        if (event.data !== undefined) received += Buffer.from(event.data, 'base64').toString();
      }
    });
  });
  await ready;
  const pid = child.pid;
  if (pid === undefined) throw new Error('the fake listener has no pid');
  return {
    pid,
    received: () => received,
    accepted: () => accepted,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          resolve();
        });
        child.stdin?.end();
      }),
  };
}
