/**
 * Appends text to one file in order, a batch at a time: what arrives while a write is under way
 * goes out together in the next one, so a burst of lines costs one open and one write rather than
 * one each. The file is created owner-only (0600). A failed write is dropped, as a log's must be:
 * a session never stops because its log could not be written.
 */
import { appendFile } from 'node:fs/promises';

export class AppendQueue {
  private buffered = '';
  private writing: Promise<void> | undefined;

  constructor(readonly file: string) {}

  append(text: string): void {
    this.buffered += text;
    this.writing ??= this.drain();
  }

  /** Settles once everything appended so far is written (or dropped). */
  flushed(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    // the rest of this turn's appends join the first write
    await Promise.resolve();
    while (this.buffered !== '') {
      const text = this.buffered;
      this.buffered = '';
      await appendFile(this.file, text, { mode: 0o600 }).catch(() => undefined);
    }
    this.writing = undefined;
  }
}

/** One queue per file, made on first use: for logs named as they are first written. */
export class AppendQueues {
  private readonly queues = new Map<string, AppendQueue>();

  append(file: string, text: string): void {
    let queue = this.queues.get(file);
    if (queue === undefined) {
      queue = new AppendQueue(file);
      this.queues.set(file, queue);
    }
    queue.append(text);
  }

  /** Settles once everything appended to any file so far is written (or dropped). */
  async flushed(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.flushed()));
  }
}
