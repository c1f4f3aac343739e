/**
 * Newline-delimited JSON over a byte stream: splits on `\n` at the byte level (so a multi-byte
 * character cut between two chunks stays whole), parses each non-empty line, and hands lines that
 * are not JSON to a separate callback.
 */
export class JsonLines {
  private pending: Buffer[] = [];

  constructor(
    private readonly onValue: (value: unknown) => void,
    private readonly onBadLine: (line: string) => void = () => undefined,
  ) {}

  push(chunk: Buffer): void {
    let rest = chunk;
    for (;;) {
      const index = rest.indexOf(0x0a);
      if (index === -1) break;
      const head = rest.subarray(0, index);
      const bytes = this.pending.length === 0 ? head : Buffer.concat([...this.pending, head]);
      this.pending = [];
      rest = rest.subarray(index + 1);
      const line = bytes.toString('utf8').trim();
      if (line === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        this.onBadLine(line);
        continue;
      }
      this.onValue(value);
    }
    if (rest.length > 0) this.pending.push(rest);
  }
}
