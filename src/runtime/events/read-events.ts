/**
 * Reads a session's event log. Only whole lines are read, so a write in progress is left for the
 * next read; lines that are not events are skipped.
 */
import { open } from 'node:fs/promises';

import { eventsFile } from './event-log.js';
import type { SessionEvent } from './session-event.js';

function parse(line: string): SessionEvent | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    const v = value as Record<string, unknown>;
    return typeof v.type === 'string' && typeof v.time === 'string'
      ? (value as SessionEvent)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Reads whole lines from `offset`; returns the events and the offset after the last whole line. */
async function readFrom(
  file: string,
  offset: number,
): Promise<{ events: SessionEvent[]; offset: number }> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], offset };
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size <= offset) return { events: [], offset };
    const buffer = Buffer.alloc(size - offset);
    await handle.read(buffer, 0, buffer.length, offset);
    const last = buffer.lastIndexOf(0x0a);
    if (last < 0) return { events: [], offset };
    const text = buffer.subarray(0, last + 1).toString('utf8');
    const events = text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .flatMap((l) => {
        const e = parse(l);
        return e === undefined ? [] : [e];
      });
    return { events, offset: offset + last + 1 };
  } finally {
    await handle.close();
  }
}

export async function readEvents(sessionDir: string): Promise<SessionEvent[]> {
  return (await readFrom(eventsFile(sessionDir), 0)).events;
}
