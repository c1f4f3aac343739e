/**
 * Masks credential values in text from child processes (stderr tails, error messages) before it
 * is shown, logged or stored. Longer values are replaced first so overlapping values stay hidden.
 */

export const MASK = '****';

/** Replaces every occurrence of every value (of 4 or more characters) with `****`. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const values = [...new Set(secrets)]
    .filter((s) => s.length >= 4)
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const value of values) out = out.split(value).join(MASK);
  return out;
}

/**
 * Masks a stream of text line by line, so a value split across chunks is still caught. A partial
 * line is passed on (masked) when no newline follows within `flushMs`, or at `end()`.
 */
export class MaskingStream {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly secrets: readonly string[],
    private readonly emit: (text: string) => void,
    private readonly flushMs = 200,
  ) {}

  push(chunk: string): void {
    this.pending += chunk;
    const cut = this.pending.lastIndexOf('\n');
    if (cut >= 0) {
      const lines = this.pending.slice(0, cut + 1);
      this.pending = this.pending.slice(cut + 1);
      this.emit(maskSecrets(lines, this.secrets));
    }
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending !== '') {
      this.timer = setTimeout(() => {
        this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending === '') return;
    const rest = this.pending;
    this.pending = '';
    this.emit(maskSecrets(rest, this.secrets));
  }

  end(): void {
    this.flush();
  }
}
