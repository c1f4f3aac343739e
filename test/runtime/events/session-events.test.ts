/**
 * Session events: app-server notifications and rollout lines mapped to events, the event log
 * masking credential values and bounding text, and the text rendering `session logs` prints.
 */
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { EventLog } from '../../../src/runtime/events/event-log.js';
import { formatEvent } from '../../../src/runtime/events/format-event.js';
import { eventsOfNotification } from '../../../src/runtime/events/notification-events.js';
import { readEvents } from '../../../src/runtime/events/read-events.js';
import { eventsOfRolloutLine } from '../../../src/runtime/events/rollout-events.js';
import { tmpDir } from '../../support/tmp.js';

describe('eventsOfNotification', () => {
  it('maps turns, messages, MCP tool calls and commands', () => {
    const of = (method: string, params: Record<string, unknown>) =>
      eventsOfNotification('worker-1', 'worker', { method, params });
    expect(of('turn/started', { threadId: 't', turn: { id: 'u' } })).toEqual([
      { process: 'worker-1', role: 'worker', thread: 't', type: 'turn.started', turn: 'u' },
    ]);
    expect(
      of('turn/completed', {
        threadId: 't',
        turn: { id: 'u', status: 'failed', error: { message: 'boom' } },
      }),
    ).toMatchObject([{ type: 'turn.completed', status: 'failed', text: 'boom' }]);
    expect(
      of('item/completed', {
        threadId: 't',
        turnId: 'u',
        item: { type: 'agentMessage', text: 'hi' },
      }),
    ).toMatchObject([{ type: 'message', text: 'hi', turn: 'u' }]);
    expect(
      of('item/started', {
        threadId: 't',
        item: { type: 'mcpToolCall', server: 'files', tool: 'write', status: 'inProgress' },
      }),
    ).toMatchObject([{ type: 'tool_call.started', server: 'files', tool: 'write' }]);
    // a call whose server answered with an error result says why, shortened
    const refusal = `mmo_mesh refused: cwd '/w' holds the config dir ${'x'.repeat(400)}`;
    const failed = of('item/completed', {
      threadId: 't',
      item: {
        type: 'mcpToolCall',
        server: 'mmo_mesh',
        tool: 'spawn_participant',
        status: 'failed',
        error: null,
        result: { content: [{ type: 'text', text: refusal }], isError: true },
      },
    });
    expect(failed).toMatchObject([{ type: 'tool_call.completed', status: 'failed' }]);
    expect(failed[0]?.text).toBe(`${refusal.slice(0, 300)}…`);
    // a completed call's answer is never copied into the event
    const ok = of('item/completed', {
      threadId: 't',
      item: {
        type: 'mcpToolCall',
        server: 'files',
        tool: 'read',
        status: 'completed',
        result: { content: [{ type: 'text', text: 'file body' }] },
      },
    });
    expect(ok[0]).not.toHaveProperty('text');
    expect(
      of('item/completed', {
        threadId: 't',
        item: { type: 'commandExecution', command: 'ls', status: 'completed', exitCode: 0 },
      }),
    ).toMatchObject([{ type: 'command', text: 'ls', exit_code: 0 }]);
    expect(of('item/agentMessage/delta', { threadId: 't', delta: 'h' })).toEqual([]);
    expect(of('item/started', { item: { type: 'agentMessage' } })).toEqual([]);
  });
});

describe('eventsOfRolloutLine', () => {
  const base = { time: '2026-01-01T00:00:00.000Z', session: 's', process: 'root', role: 'lead' };
  it('maps task events, assistant messages, MCP calls and commands', () => {
    const line = (type: string, payload: Record<string, unknown>): string =>
      JSON.stringify({ timestamp: '2026-01-01T00:00:01.000Z', type, payload });
    expect(
      eventsOfRolloutLine(base, line('event_msg', { type: 'task_started', turn_id: 'u' })),
    ).toMatchObject([{ type: 'turn.started', turn: 'u', time: '2026-01-01T00:00:01.000Z' }]);
    expect(
      eventsOfRolloutLine(
        base,
        line('response_item', {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'done' }],
        }),
      ),
    ).toMatchObject([{ type: 'message', text: 'done' }]);
    expect(
      eventsOfRolloutLine(
        base,
        line('response_item', { type: 'function_call', namespace: 'mcp__files', name: 'write' }),
      ),
    ).toMatchObject([{ type: 'tool_call.started', server: 'files', tool: 'write' }]);
    expect(
      eventsOfRolloutLine(
        base,
        line('response_item', {
          type: 'function_call',
          name: 'exec_command',
          arguments: '{"cmd":"ls"}',
        }),
      ),
    ).toMatchObject([{ type: 'command', text: 'ls' }]);
    expect(
      eventsOfRolloutLine(
        base,
        line('response_item', { type: 'message', role: 'user', content: [] }),
      ),
    ).toEqual([]);
    expect(eventsOfRolloutLine(base, 'not json')).toEqual([]);
  });
});

describe('EventLog', () => {
  it('appends masked, bounded events in order and reads them back', async () => {
    const dir = await tmpDir('codex-mmo-events-');
    const log = new EventLog(dir, 's1', ['canary-value-1']);
    log.addSecrets(['canary-value-2']);
    log.append({ process: 'root', role: 'lead', type: 'message', text: 'a canary-value-1 b' });
    log.append({
      process: 'root',
      role: 'lead',
      type: 'message',
      text: `x ${'y'.repeat(5000)} canary-value-2`,
    });
    await log.flushed();
    const events = await readEvents(dir);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ session: 's1', text: 'a *** b' });
    expect(events[1]?.text?.length).toBeLessThan(2100);
    const raw = JSON.stringify(events);
    expect(raw).not.toContain('canary-value');
    expect(formatEvent(events[0]!)).toMatch(/^\d\d:\d\d:\d\d root \(lead\) message: a \*\*\* b$/);
    expect(await readEvents(join(dir, 'missing'))).toEqual([]);
  });

  it('tells a session that began to end and a server that failed, one line each', () => {
    const base = { time: '2026-12-01T11:51:14.000Z', session: 's1', process: 'root', role: 'lead' };
    expect(formatEvent({ ...base, type: 'session.ending', text: 'stopped by SIGTERM' })).toBe(
      '11:51:14 root (lead) session ending: stopped by SIGTERM; later requests are refused (session-ended)',
    );
    expect(
      formatEvent({
        ...base,
        type: 'server.failed',
        server: 'files',
        status: 'start-failed',
        text: 'it exited with code 1; its stderr ended with: no such directory',
      }),
    ).toBe(
      '11:51:14 root (lead) server files failed to start: it exited with code 1; its stderr ended with: no such directory',
    );
  });
});
