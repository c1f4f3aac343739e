/**
 * The mmo_mesh MCP server over an in-memory MCP transport: its five tools and their argument
 * shapes, arguments passed through to the back end, and refusals or failures turned into tool
 * errors (isError) rather than protocol errors or crashes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';

import { createMeshServer, type MeshServer } from '../../../src/runtime/mesh/mesh-server.js';
import { MESH_TOOL_NAMES } from '../../../src/runtime/mesh/mesh-tools.js';
import {
  MeshError,
  type MeshBackend,
  type ParticipantInfo,
} from '../../../src/runtime/protocol/mesh-protocol.js';

const info: ParticipantInfo = {
  participant: 'researcher-1',
  role: 'researcher',
  status: 'running',
  owner: 'root',
  cwd: '/work',
  started: '2026-01-01T00:00:00.000Z',
  queued_messages: 0,
};

const calls: unknown[][] = [];
const backend: MeshBackend = {
  spawn: (args) => {
    calls.push(['spawn', args]);
    if (args.role === 'reviewer') {
      return Promise.reject(new MeshError('refused', "role 'lead' may not spawn role 'reviewer'"));
    }
    return Promise.resolve(info);
  },
  send: (participant, message) => {
    calls.push(['send', participant, message]);
    return Promise.resolve({ participant, status: 'running', delivered: 'queued' });
  },
  wait: (participant, timeout) => {
    calls.push(['wait', participant, timeout]);
    if (participant === 'crashed-1') {
      return Promise.resolve({
        participant,
        role: 'r',
        status: 'failed',
        timed_out: false,
        error: 'exited (code 3)',
      });
    }
    return Promise.resolve({
      participant,
      role: 'researcher',
      status: 'idle',
      timed_out: false,
      final_message: 'FOUND IT',
    });
  },
  list: () => Promise.resolve({ participants: [info] }),
  stop: () => Promise.reject(new Error('socket closed')),
};

let client: Client | undefined;

async function connect(): Promise<Client> {
  const server = createMeshServer(backend, {
    role: 'lead',
    spawn: ['researcher'],
    control: ['researcher'],
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  return client;
}

afterEach(async () => {
  await client?.close();
  calls.length = 0;
});

function text(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return content.map((c) => c.text).join('');
}

describe('mmo_mesh server', () => {
  it('offers the five tools with their argument shapes', async () => {
    const c = await connect();
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MESH_TOOL_NAMES].sort());
    const schema = (name: string): { properties?: Record<string, unknown>; required?: string[] } =>
      tools.find((t) => t.name === name)?.inputSchema as never;
    expect(Object.keys(schema('spawn_participant').properties ?? {})).toEqual([
      'role',
      'task',
      'cwd',
      'resume',
    ]);
    expect(schema('spawn_participant').required).toEqual(['role', 'task']);
    expect(schema('send_message').required).toEqual(['participant', 'message']);
    expect(Object.keys(schema('wait_participant').properties ?? {})).toEqual([
      'participant',
      'timeout_sec',
    ]);
    expect(schema('stop_participant').required).toEqual(['participant']);
    expect(tools.find((t) => t.name === 'spawn_participant')?.description).toContain(
      'Roles you may spawn: researcher.',
    );
    expect(tools.find((t) => t.name === 'list_participants')?.annotations?.readOnlyHint).toBe(true);
    expect(c.getInstructions()).toContain("You act as role 'lead'");
  });

  it('passes calls through and returns results as text', async () => {
    const c = await connect();
    const spawned = await c.callTool({
      name: 'spawn_participant',
      arguments: { role: 'researcher', task: 'look' },
    });
    expect(spawned.isError).toBeFalsy();
    expect(text(spawned)).toContain('Started participant researcher-1 (role researcher).');
    const waited = await c.callTool({
      name: 'wait_participant',
      arguments: { participant: 'researcher-1', timeout_sec: 5 },
    });
    expect(text(waited)).toContain('Final message:\nFOUND IT');
    const sent = await c.callTool({
      name: 'send_message',
      arguments: { participant: 'researcher-1', message: 'more' },
    });
    expect(JSON.parse(text(sent))).toEqual({
      participant: 'researcher-1',
      status: 'running',
      delivered: 'queued',
    });
    const listed = await c.callTool({ name: 'list_participants', arguments: {} });
    expect(JSON.parse(text(listed))).toEqual({ participants: [info] });
    expect(calls).toEqual([
      ['spawn', { role: 'researcher', task: 'look' }],
      ['wait', 'researcher-1', 5],
      ['send', 'researcher-1', 'more'],
    ]);
  });

  it('turns refusals and failures into tool errors', async () => {
    const c = await connect();
    const refused = await c.callTool({
      name: 'spawn_participant',
      arguments: { role: 'reviewer', task: 'x' },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe("mmo_mesh refused: role 'lead' may not spawn role 'reviewer'");
    const failed = await c.callTool({
      name: 'wait_participant',
      arguments: { participant: 'crashed-1' },
    });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe('mmo_mesh failed: participant crashed-1 failed: exited (code 3)');
    const broken = await c.callTool({
      name: 'stop_participant',
      arguments: { participant: 'researcher-1' },
    });
    expect(broken.isError).toBe(true);
    expect(text(broken)).toBe('mmo_mesh failed: socket closed');
    const invalid = await c.callTool({ name: 'spawn_participant', arguments: { task: 'no role' } });
    expect(invalid.isError).toBe(true);
    expect(calls.filter((call) => call[0] === 'spawn')).toHaveLength(1);
  });
});

/** A client end that speaks raw JSON-RPC to a mesh server, recording what the server sends. */
async function raw(serving: MeshBackend = backend): Promise<{
  send: (message: Record<string, unknown>) => Promise<void>;
  received: Record<string, unknown>[];
  next: (match: (m: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>;
  server: MeshServer;
  close: () => Promise<void>;
}> {
  const server = createMeshServer(serving, { role: 'lead', spawn: [], control: [] });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const received: Record<string, unknown>[] = [];
  const waiting: { match: (m: Record<string, unknown>) => boolean; wake: () => void }[] = [];
  b.onmessage = (message) => {
    received.push(message);
    for (const w of [...waiting]) if (w.match(message)) w.wake();
  };
  await b.start();
  const next = (match: (m: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const found = received.find(match);
      if (found !== undefined) {
        resolve(found);
        return;
      }
      waiting.push({
        match,
        wake: () => {
          resolve(received.find(match) ?? {});
        },
      });
    });
  return {
    send: (message) => b.send({ jsonrpc: '2.0', ...message } as never),
    received,
    next,
    server,
    close: () => b.close(),
  };
}

const answerTo =
  (id: unknown) =>
  (m: Record<string, unknown>): boolean =>
    m.id === id && m.method === undefined;

describe('mmo_mesh protocol', () => {
  it('negotiates the revision, answers ping and refuses every other method', async () => {
    const c = await raw();
    await c.send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't' } },
    });
    expect(await c.next(answerTo(1))).toMatchObject({
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'mmo_mesh' },
      },
    });
    await c.send({ id: 2, method: 'initialize', params: { protocolVersion: '1999-01-01' } });
    expect(await c.next(answerTo(2))).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    await c.send({ id: 3, method: 'ping' });
    expect(await c.next(answerTo(3))).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    for (const [id, method] of [
      [4, 'resources/list'],
      [5, 'prompts/get'],
      [6, 'completion/complete'],
      [7, 'logging/setLevel'],
    ] as const) {
      await c.send({ id, method, params: {} });
      expect(await c.next(answerTo(id))).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32601, message: 'Method not found' },
      });
    }
    await c.send({ id: 8, method: 'tools/call', params: { name: 'delete_everything' } });
    expect(await c.next(answerTo(8))).toMatchObject({
      result: {
        isError: true,
        content: [{ text: 'MCP error -32602: Tool delete_everything not found' }],
      },
    });
    await c.send({
      id: 9,
      method: 'tools/call',
      params: { name: 'spawn_participant', arguments: 'x' },
    });
    expect(await c.next(answerTo(9))).toMatchObject({ result: { isError: true } });
    expect(calls).toEqual([]);
    await c.close();
  });

  it('sends no answer to a request the client cancelled while it ran', async () => {
    let release: () => void = () => undefined;
    const slow: MeshBackend = {
      ...backend,
      list: () =>
        new Promise((resolve) => {
          release = () => {
            resolve({ participants: [] });
          };
        }),
    };
    const c = await raw(slow);
    await c.send({ id: 'w', method: 'tools/call', params: { name: 'list_participants' } });
    await c.send({ method: 'notifications/cancelled', params: { requestId: 'w' } });
    release();
    // a cancellation of a request already answered changes nothing
    await c.send({ id: 'q', method: 'tools/call', params: { name: 'stop_participant' } });
    await c.next(answerTo('q'));
    await c.send({ method: 'notifications/cancelled', params: { requestId: 'q' } });
    await c.send({ id: 'p', method: 'ping' });
    await c.next(answerTo('p'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(c.received.filter((m) => m.id === 'w')).toEqual([]);
    expect(c.received.filter((m) => m.id === 'q')).toHaveLength(1);
    await c.close();
  });

  it('asks a client that takes forms, and withdraws a question that is aborted or times out', async () => {
    const c = await raw();
    expect(c.server.canElicitForms()).toBe(false);
    await expect(
      c.server.elicitInput({
        mode: 'form',
        message: 'm',
        requestedSchema: { type: 'object', properties: {} },
      }),
    ).rejects.toThrow('the client takes no form elicitation');
    // an empty elicitation capability means forms
    await c.send({ id: 1, method: 'initialize', params: { capabilities: { elicitation: {} } } });
    await c.next(answerTo(1));
    expect(c.server.canElicitForms()).toBe(true);
    const params = {
      mode: 'form',
      message: 'approve?',
      requestedSchema: { type: 'object', properties: {} },
    } as const;

    // the n-th question the server put to the client
    const ask = (n: number) =>
      c.next((m) => c.received.filter((r) => r.method === 'elicitation/create').indexOf(m) === n);

    const accepted = c.server.elicitInput(params);
    const first = await ask(0);
    expect(first.params).toEqual(params);
    await c.send({ id: first.id, result: { action: 'accept', content: {} } });
    expect(await accepted).toEqual({ action: 'accept', content: {} });

    const controller = new AbortController();
    const aborted = c.server.elicitInput(params, { signal: controller.signal });
    const second = await ask(1);
    controller.abort('answered elsewhere');
    await expect(aborted).rejects.toThrow('answered elsewhere');
    expect(await c.next((m) => m.method === 'notifications/cancelled')).toMatchObject({
      params: { requestId: second.id, reason: 'answered elsewhere' },
    });

    await expect(c.server.elicitInput(params, { timeout: 10 })).rejects.toThrow(
      'the request timed out',
    );

    const refused = c.server.elicitInput(params);
    const fourth = await ask(3);
    await c.send({ id: fourth.id, result: { action: 'maybe' } });
    await expect(refused).rejects.toThrow('the elicitation answer names no action');

    const pending = c.server.elicitInput(params);
    await c.close();
    await expect(pending).rejects.toThrow('the connection closed');
  });
});
