/**
 * Calls turned away in the provider's stream: a call to a tool the process has but the thread was
 * not offered is renamed (namespace dropped, the tool and the reason in its name) in every event
 * that carries it, reported once; an offered call, a tool the process lacks, other items and
 * events that are not JSON pass unchanged, whatever the chunking (events and UTF-8 split
 * anywhere).
 */
import { Readable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import {
  callFilter,
  RefusingStream,
  refuseInEvent,
  type TurnedAway,
} from '../../../src/runtime/model-wire/refuse-calls.js';

const ns = (name: string, tools: string[]): unknown => ({
  type: 'namespace',
  name,
  tools: tools.map((t) => ({ type: 'function', name: t })),
});
// the process has notes.read and notes.write; the thread was offered notes.read only
const filter = callFilter(
  [ns('mcp__notes', ['read', 'write']), { type: 'function', name: 'exec_command' }],
  [ns('mcp__notes', ['read']), { type: 'function', name: 'exec_command' }],
  'scout',
);
const call = (name: string, namespace?: string, id = 'c1'): Record<string, unknown> => ({
  type: 'function_call',
  call_id: id,
  name,
  ...(namespace !== undefined ? { namespace } : {}),
  arguments: '{"text":"héllo"}',
});

/** A command call asking to leave the sandbox, with its reason `go`. */
const command = (id: string): Record<string, unknown> => ({
  type: 'function_call',
  call_id: id,
  name: 'exec_command',
  arguments: '{"cmd":"make","sandbox_permissions":"require_escalated","justification":"go"}',
});

/** `text` through a RefusingStream in chunks of `size` bytes: what came out, and what it refused. */
async function streamed(text: string, size: number): Promise<{ out: string; found: TurnedAway[] }> {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  const found: TurnedAway[] = [];
  const stream = Readable.from(chunks).pipe(new RefusingStream(filter, (c) => found.push(c)));
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return { out, found };
}

describe('calls turned away in the stream', () => {
  it('renames a call outside the thread and leaves the others', () => {
    const found: TurnedAway[] = [];
    const out = refuseInEvent(
      { type: 'response.output_item.done', item: call('write', 'mcp__notes') },
      filter,
      (c) => found.push(c),
    );
    expect(out).toEqual({
      type: 'response.output_item.done',
      item: {
        type: 'function_call',
        call_id: 'c1',
        name: "mcp__notes.write is not granted to role 'scout' [tool-not-granted-to-role]",
        arguments: '{"text":"héllo"}',
      },
    });
    expect(found).toEqual([{ callId: 'c1', namespace: 'mcp__notes', name: 'write' }]);
    for (const item of [
      call('read', 'mcp__notes'),
      call('exec_command'),
      call('delete', 'mcp__notes'),
      { type: 'message', content: [] },
    ]) {
      const event = { type: 'response.output_item.done', item };
      expect(
        refuseInEvent(event, filter, () => found.push({ callId: 'x', namespace: '', name: '' })),
      ).toEqual(event);
    }
    expect(found).toHaveLength(1);
    // the flat name Codex 0.149 may use, and the completed response's output
    const flat = refuseInEvent(
      { type: 'response.completed', response: { id: 'r', output: [call('mcp__notes__write')] } },
      filter,
      () => undefined,
    ) as { response: { output: { name: string }[] } };
    expect(flat.response.output[0]?.name).toBe(
      "mcp__notes__write is not granted to role 'scout' [tool-not-granted-to-role]",
    );
  });

  it('turns away a call of a server tool no request listed when the role lacks it', () => {
    // a deferred tool: in neither list, but a tool of one of the process's servers
    const deferred = callFilter([], [], 'scout', (namespace, name) => {
      return namespace === 'mcp__other' || (namespace === 'mcp__notes' && name !== 'read');
    });
    const names = [
      call('ping', 'mcp__other'),
      call('write', 'mcp__notes'),
      call('read', 'mcp__notes'),
    ]
      .map(
        (item) => refuseInEvent({ item }, deferred, () => undefined) as { item: { name: string } },
      )
      .map((e) => e.item.name);
    expect(names).toEqual([
      "mcp__other.ping is not granted to role 'scout' [tool-not-granted-to-role]",
      "mcp__notes.write is not granted to role 'scout' [tool-not-granted-to-role]",
      'read',
    ]);
    // a listed tool of the thread is never turned away, whatever the rule says
    const listed = callFilter([], [ns('mcp__other', ['ping'])], 'scout', () => true);
    expect(refuseInEvent({ item: call('ping', 'mcp__other') }, listed, () => undefined)).toEqual({
      item: call('ping', 'mcp__other'),
    });
  });

  it("names the role in a command's approval reason, in the item and the completed output", () => {
    const reasons = [
      refuseInEvent({ item: command('c9') }, filter, () => undefined),
      refuseInEvent({ response: { output: [command('c9')] } }, filter, () => undefined),
    ].map((e) => JSON.stringify(e));
    for (const r of reasons) expect(r).toContain("Role 'scout' asks: go");
    // an unattributed thread's command says so: the model cannot name a role for it
    const none = callFilter([], [], undefined);
    expect(JSON.stringify(refuseInEvent({ item: command('c9') }, none, () => undefined))).toContain(
      'A thread of no known role asks: go',
    );
    // a block whose event changes nothing passes byte for byte, one that changes is rewritten
    const other = { item: { type: 'message', content: [] } };
    expect(refuseInEvent(other, filter, () => undefined)).toBe(other);
  });

  it('rewrites whole events of a stream split anywhere, reporting each call once', async () => {
    const events = [
      { type: 'response.created', response: { id: 'r' } },
      { type: 'response.output_item.added', item: call('write', 'mcp__notes') },
      { type: 'response.output_item.done', item: call('write', 'mcp__notes') },
      { type: 'response.output_item.done', item: call('read', 'mcp__notes', 'c2') },
      { type: 'response.completed', response: { id: 'r', output: [call('write', 'mcp__notes')] } },
    ];
    const text = `${events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')}: comment\n\n`;
    for (const size of [1, 3, 7, 64, Buffer.byteLength(text)]) {
      const { out, found } = await streamed(text, size);
      const data = out
        .split('\n\n')
        .filter((b) => b.includes('data: '))
        .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)) as Record<string, unknown>);
      expect(data).toHaveLength(5);
      expect(JSON.stringify(data)).not.toContain('"name":"write"');
      expect(JSON.stringify(data)).toContain('"name":"read"');
      expect(JSON.stringify(data)).toContain('héllo');
      expect(out).toContain('event: response.output_item.done\n');
      expect(out).toContain(': comment');
      expect(found).toEqual([{ callId: 'c1', namespace: 'mcp__notes', name: 'write' }]);
    }
  });

  it('reads events whatever their line ends (CR, LF or CRLF), split anywhere', async () => {
    const events = [
      { type: 'response.output_item.done', item: call('write', 'mcp__notes') },
      { type: 'response.output_item.done', item: command('c5') },
      { type: 'response.completed', response: { id: 'r', output: [] } },
    ];
    for (const end of ['\r', '\r\n', '\n']) {
      const text = events
        .map((e) => `event: ${e.type}${end}data: ${JSON.stringify(e)}${end}${end}`)
        .join('');
      for (const size of [1, 2, 5, Buffer.byteLength(text)]) {
        const { out, found } = await streamed(text, size);
        expect(out.split('\n\n').filter((b) => b.includes('data: '))).toHaveLength(3);
        expect(out).not.toContain('"name":"write"');
        expect(out).toContain("Role 'scout' asks: go");
        expect(found.map((c) => c.callId)).toEqual(['c1']);
      }
    }
  });
});
