/**
 * Keeps a running session's `session.json` current: every change is applied to the record in
 * memory at once and written in order, so the newest state always lands last.
 */
import type { SessionRecord } from '../../runtime/session/session-record.js';
import { writeSessionRecord } from '../../runtime/session/session-store.js';

/** Serialises record writes so the newest state always lands last. */
export class RecordWriter {
  private chain: Promise<void> = Promise.resolve();
  constructor(
    private readonly dir: string,
    public record: SessionRecord,
  ) {}

  update(change: (record: SessionRecord) => SessionRecord): Promise<void> {
    this.record = change(this.record);
    const snapshot = this.record;
    this.chain = this.chain
      .then(() => writeSessionRecord(this.dir, snapshot))
      .catch(() => undefined);
    return this.chain;
  }
}
