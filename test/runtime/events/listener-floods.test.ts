/**
 * How a flooded listener is told: its `listener.flood` event (the listener and its cap, no
 * token), its line in `session logs`, and the words a failed session's cause gains.
 */
import { describe, expect, it } from 'vitest';

import { formatEvent } from '../../../src/runtime/events/format-event.js';
import { floodCause, floodEvent } from '../../../src/runtime/events/listener-floods.js';

describe('listener floods', () => {
  it('records the listener and its cap as a supervisor event', () => {
    const event = floodEvent({ listener: 'gateway-http', limit: 64, closed: 1 });
    expect(event).toMatchObject({
      process: 'supervisor',
      role: 'codex-mmo',
      type: 'listener.flood',
      listener: 'gateway-http',
      count: 64,
    });
    expect(formatEvent({ ...event, time: '2026-12-01T12:00:01.000Z', session: 's1' })).toBe(
      '12:00:01 supervisor (codex-mmo) listener gateway-http flooded: 64 connections waiting to authenticate — the connection waiting longest is closed for each new one, unread',
    );
  });

  it('names every flooded listener in a failure cause, and nothing without one', () => {
    expect(floodCause([])).toBeUndefined();
    expect(
      floodCause([
        { listener: 'gateway-http', limit: 64, closed: 23936 },
        { listener: 'model-wire', limit: 64, closed: 70 },
      ]),
    ).toBe(
      'flooded with connections that did not authenticate: gateway-http (23936 closed; 64 waiting to authenticate is its limit), model-wire (70 closed; 64 waiting to authenticate is its limit)',
    );
  });
});
