/**
 * Output of the `codex-mmo` executable: text written straight to file descriptor 1 or 2 with
 * synchronous writes, so a short command never builds Node's stdout/stderr streams (a pipe's
 * stream loads the whole networking stack). Falls back to the stream when the descriptor is
 * non-blocking and full. After a closed pipe (`codex-mmo … | head`) nothing more is written and
 * `onClosed` runs once; the executable then ends quietly, keeping a finished command's exit code.
 */
import { writeSync } from 'node:fs';

/** A writer for `fd`; `stream` gives the same descriptor's Node stream, created only if needed. */
export function fdWriter(
  fd: 1 | 2,
  stream: () => NodeJS.WriteStream,
  onClosed: () => void,
): (text: string) => void {
  let streamed: NodeJS.WriteStream | undefined;
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    onClosed();
  };
  const viaStream = (rest: Uint8Array | string): void => {
    if (streamed === undefined) {
      streamed = stream();
      streamed.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EPIPE') close();
        else throw error;
      });
    }
    streamed.write(rest);
  };
  return (text) => {
    if (closed) return;
    if (streamed !== undefined) {
      viaStream(text);
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    let done = 0;
    while (done < bytes.length) {
      try {
        done += writeSync(fd, bytes, done);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') {
          close();
          return;
        }
        if (code !== 'EAGAIN') throw error;
        viaStream(bytes.subarray(done));
        return;
      }
    }
  };
}
