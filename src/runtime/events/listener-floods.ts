/**
 * How a listener flooded with connections that did not authenticate is told: the session event
 * recorded when its cap is first reached, and the words a failed session's recorded cause gains
 * (the listener, its cap and how many connections it closed; never a token).
 */
import type { ListenerFlood } from '../../foundation/process/connection-limits.js';
import type { EventInput } from './session-event.js';

/** The `listener.flood` event of `flood`, recorded by the supervising process. */
export function floodEvent(flood: ListenerFlood): EventInput {
  return {
    process: 'supervisor',
    role: 'codex-mmo',
    type: 'listener.flood',
    listener: flood.listener,
    count: flood.limit,
    text: 'the connection waiting longest is closed for each new one, unread',
  };
}

/** What a failed session's cause adds for the floods it saw; undefined when there were none. */
export function floodCause(floods: readonly ListenerFlood[]): string | undefined {
  if (floods.length === 0) return undefined;
  const each = floods.map(
    (f) =>
      `${f.listener} (${String(f.closed)} closed; ${String(f.limit)} waiting to authenticate is its limit)`,
  );
  return `flooded with connections that did not authenticate: ${each.join(', ')}`;
}
