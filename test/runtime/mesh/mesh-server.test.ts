/**
 * The mmo_mesh MCP server over an in-memory MCP transport: its five tools and their argument
 * shapes, arguments passed through to the back end, and refusals or failures turned into tool
 * errors (isError) rather than protocol errors or crashes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';

import { createMeshServer } from '../../../src/runtime/mesh/mesh-server.js';
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
