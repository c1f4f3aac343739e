/**
 * Appends a session's events to `<session>/events.jsonl` in the order they happen, masking every
 * string with the session's credential values first and bounding long text. Writes are queued in
 * order, so lines never interleave; listeners (exec's progress output) see each event as it is logged.
 */
import { join } from 'node:path';

import { AppendQueue } from '../../foundation/append-queue.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { MAX_EVENT_TEXT, type EventInput, type SessionEvent } from './session-event.js';

export const EVENTS_FILE = 'events.jsonl';

export function eventsFile(sessionDir: string): string {
  return join(sessionDir, EVENTS_FILE);
}

function bound(text: string): string {
  return text.length > MAX_EVENT_TEXT
    ? `${text.slice(0, MAX_EVENT_TEXT)}… (${text.length} characters)`
    : text;
}

export class EventLog {
  private readonly queue: AppendQueue;
  private readonly listeners: ((event: SessionEvent) => void)[] = [];
  private secrets: string[];

  constructor(
    private readonly sessionDir: string,
    private readonly session: string,
    secrets: readonly string[],
  ) {
    this.secrets = [...secrets];
    this.queue = new AppendQueue(eventsFile(sessionDir));
  }

  /** More values to mask from now on (a participant's own credentials). */
  addSecrets(values: readonly string[]): void {
    this.secrets = [...new Set([...this.secrets, ...values])];
  }

  /** `text` with every value masked that the log masks (the session's and every process's). */
  mask(text: string): string {
    return maskSecrets(text, this.secrets);
  }

  listen(listener: (event: SessionEvent) => void): void {
    this.listeners.push(listener);
  }

  append(input: EventInput): SessionEvent {
    const masked: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      masked[key] = typeof value === 'string' ? bound(maskSecrets(value, this.secrets)) : value;
    }
    const event = {
      time: input.time ?? new Date().toISOString(),
      session: this.session,
      ...masked,
    } as SessionEvent;
    this.queue.append(`${JSON.stringify(event)}\n`);
    for (const l of this.listeners) l(event);
    return event;
  }

  /** Settles once every event appended so far is on disk. */
  flushed(): Promise<void> {
    return this.queue.flushed();
  }
}
