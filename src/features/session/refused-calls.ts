/**
 * How a refused call is told (pure): a call to a tool the model was not offered becomes a call
 * record (`tool-not-offered`), and every refused call record becomes a `tool_call.refused` event
 * of the session log, with the calling role, server, tool and reason.
 */
import type { CallRecord } from '../../runtime/gateway/call-record.js';
import type { EventInput } from '../../runtime/events/session-event.js';
import type { UnofferedCallOf } from '../../runtime/model-wire/model-wire.js';

/** What an unattributed thread is called in the session log. */
export const UNATTRIBUTED_ROLE = '(unattributed)';

export function unofferedRecord(call: UnofferedCallOf): CallRecord {
  return {
    time: new Date().toISOString(),
    process: call.process,
    role: call.role,
    thread: call.thread,
    parent_thread: call.parentThread,
    server: call.server,
    tool: call.tool,
    outcome: 'denied',
    reason: call.reason ?? 'tool-not-offered',
    duration_ms: 0,
  };
}

export function refusedEvent(entry: CallRecord): EventInput {
  return {
    process: entry.process,
    role: entry.role ?? UNATTRIBUTED_ROLE,
    type: 'tool_call.refused',
    ...(entry.thread !== null ? { thread: entry.thread } : {}),
    server: entry.server,
    tool: entry.tool,
    ...(entry.tool === '' && entry.method !== undefined ? { method: entry.method } : {}),
    status: entry.outcome,
    ...(entry.reason !== undefined ? { text: entry.reason } : {}),
  };
}
