/**
 * Newline-delimited JSON framing, the one used for every line protocol: a byte stream is split
 * on `\n` at the byte level (a multi-byte character cut between chunks stays whole, a trailing
 * `\r` is dropped, blank lines are skipped), each byte is scanned once, and an optional line
 * limit in bytes stops the framer for good, so an endless line costs neither time nor memory.
 */

export interface LineLimits {
  /** Longest line accepted, in bytes (without its `\n`); unbounded when left out. */
  maxLineLength?: number;
  /** Called once when a line goes over the limit; the framer then ignores all further input. */
  onOverflow?: () => void;
}

/** Splits a byte stream into its non-blank lines. */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stopped = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly limits: LineLimits = {},
  ) {}

  /** Changes the line limit (e.g. raised once a peer has authenticated). */
  setMaxLineLength(length: number): void {
    this.limits.maxLineLength = length;
  }

  push(chunk: Buffer | string): void {
    if (this.stopped) return;
    let rest = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const max = this.limits.maxLineLength ?? Infinity;
    for (;;) {
      const index = rest.indexOf(0x0a);
      if (index === -1) break;
      if (this.pendingBytes + index > max) {
        this.overflow();
        return;
      }
      const head = rest.subarray(0, index);
      const bytes =
        this.pending.length === 0
          ? head
          : Buffer.concat([...this.pending, head], this.pendingBytes + index);
      this.pending = [];
      this.pendingBytes = 0;
      rest = rest.subarray(index + 1);
      this.emit(bytes);
      // the line's handler may have stopped the framer
      if (this.halted) return;
    }
    if (rest.length === 0) return;
    if (this.pendingBytes + rest.length > max) {
      this.overflow();
      return;
    }
    this.pending.push(rest);
    this.pendingBytes += rest.length;
  }

  /** The stream ended: a last line without its `\n` still counts. */
  end(): void {
    if (this.stopped || this.pending.length === 0) return;
    const bytes = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.emit(bytes);
  }

  /** Ignores all further input. */
  stop(): void {
    this.stopped = true;
    this.pending = [];
    this.pendingBytes = 0;
  }

  private get halted(): boolean {
    return this.stopped;
  }

  private emit(bytes: Buffer): void {
    const line = bytes.toString('utf8').replace(/\r$/, '');
    if (line.trim() !== '') this.onLine(line);
  }

  private overflow(): void {
    this.stop();
    this.limits.onOverflow?.();
  }
}

/**
 * Splits a byte stream into lines and parses each (trimmed) as JSON; a line that is not JSON is
 * handed to `onBadLine`, never thrown.
 */
export class JsonLineDecoder {
  private readonly lines: LineSplitter;

  constructor(
    onValue: (value: unknown) => void,
    onBadLine: (line: string) => void = () => undefined,
    limits: LineLimits = {},
  ) {
    this.lines = new LineSplitter((raw) => {
      const line = raw.trim();
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        onBadLine(line);
        return;
      }
      onValue(value);
    }, limits);
  }

  setMaxLineLength(length: number): void {
    this.lines.setMaxLineLength(length);
  }

  push(chunk: Buffer | string): void {
    this.lines.push(chunk);
  }

  end(): void {
    this.lines.end();
  }
}

/** One value as one line. */
export function encodeJsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
