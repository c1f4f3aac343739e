/**
 * `<session>/calls.jsonl`: the gateway appends one `CallRecord` a line (file mode 0600, writes
 * kept in order), and `session calls` reads them back, skipping a line that does not parse (the
 * last one may be half-written while the session runs).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { AppendQueue } from '../../foundation/append-queue.js';
import type { CallRecord } from './call-record.js';

export const CALLS_FILE = 'calls.jsonl';

export function callsFile(sessionDir: string): string {
  return join(sessionDir, CALLS_FILE);
}

export class CallLog {
  private readonly queue: AppendQueue;

  constructor(readonly file: string) {
    this.queue = new AppendQueue(file);
  }

  append(record: CallRecord): void {
    this.queue.append(`${JSON.stringify(record)}\n`);
  }

  /** Resolves once every record appended so far is written. */
  flush(): Promise<void> {
    return this.queue.flushed();
  }
}

function isCallRecord(value: unknown): value is CallRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.time === 'string' && typeof v.server === 'string' && typeof v.tool === 'string';
}

/** The complete lines of calls.jsonl from byte `offset` on, and the offset after them. */
export async function readCalls(
  sessionDir: string,
  offset = 0,
): Promise<{ calls: CallRecord[]; offset: number }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(callsFile(sessionDir));
  } catch {
    return { calls: [], offset };
  }
  const end = bytes.lastIndexOf(0x0a) + 1;
  if (end <= offset) return { calls: [], offset };
  const calls: CallRecord[] = [];
  for (const line of bytes.subarray(offset, end).toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isCallRecord(value)) calls.push(value);
    } catch {
      // a damaged line is skipped
    }
  }
  return { calls, offset: end };
}
