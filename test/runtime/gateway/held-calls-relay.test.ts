/**
 * Held calls through the real relay in front of the echo server (every tool annotated read-only,
 * mode `prompt`): a tool named like a property every object has (`toString`, `constructor`, …) is
 * held like any other; a second call under an id still held is refused, so Codex cancelling that
 * id takes back the one call it names; and a call held before its tool drifted is refused when
 * approved after the drift is known, like a new call of the tool.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { GatewayHub } from '../../../src/runtime/gateway/gateway-hub.js';
import type { CallAsker } from '../../../src/runtime/gateway/held-calls.js';
import type { Route } from '../../../src/runtime/gateway/route.js';
import { ApprovalQueue } from '../../../src/runtime/approvals/approval-queue.js';
import { listedDigest } from '../../../src/runtime/probe/tool-surface.js';
import { writeFile } from 'node:fs/promises';
import { credentialSourceFrom } from '../../../src/config/registry/credentials.js';
import { tmpDir } from '../../support/tmp.js';
import { ECHO_SERVER, requireBuild, waitFor } from '../../support/world.js';
import { RawRelayClient } from '../../support/raw-relay.js';

let root: string;
let hub: GatewayHub;
let queue: ApprovalQueue;
const credentials = credentialSourceFrom({}, {}, '/nonexistent/credentials.env', true);

function route(server: string, tools: string[], args?: string[]): Route {
  return {
    process: 'root',
    role: 'lead',
    server,
    definition: {
      id: server,
      transport: 'stdio',
      command: process.execPath,
      // no `!`: every tool is annotated readOnlyHint: true by the fixture
      args: args ?? [
        ECHO_SERVER,
        '--tools',
        tools.join(','),
        '--call-log',
        join(root, `${server}.jsonl`),
      ],
      enabled_tools: tools,
      default_tools_approval_mode: 'prompt',
    },
    gate: { allowed: new Set(tools) },
    launch: {
      env: { PATH: process.env.PATH ?? '', HOME: root },
      home: root,
      cwd: root,
      credentials,
    },
    // as gatewayAsks renders it for a server with default_tools_approval_mode = "prompt"
    approvals: { defaultMode: 'prompt', tools: {}, toolTimeoutSec: 300 },
  };
}

function connect(server: string, token: string): RawRelayClient {
  return RawRelayClient.connect(hub.socketPath, server, token);
}

const INIT = {
  protocolVersion: '2025-06-18',
  capabilities: { elicitation: {} },
  clientInfo: { name: 'raw', version: '1' },
};

async function reached(server: string): Promise<string[]> {
  const text = await readFile(join(root, `${server}.jsonl`), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { tool: string }).tool);
}

beforeAll(async () => {
  requireBuild();
  root = await tmpDir('gw-held-');
  queue = new ApprovalQueue({ session: 'S', timeoutSec: 600 });
  const asker: CallAsker = {
    timeoutSec: 600,
    open: (what) => queue.open(what),
    answerFromTui: (id, decision) => void queue.answer(id, decision, 'me', 'tui'),
    withdraw: (id, reason) => void queue.answer(id, 'deny', 'supervisor', 'withdrawn', reason),
  };
  hub = await GatewayHub.start({
    socketPath: join(root, 'gateway.sock'),
    callsFile: join(root, 'calls.jsonl'),
    secrets: [],
    asker,
  });
});

afterAll(async () => {
  await hub.close();
});

describe('held calls at the relay', () => {
  it('holds every call of a `prompt` server, whatever the tool is called', async () => {
    const tools = ['note', 'toString', 'constructor', 'valueOf', 'hasOwnProperty'];
    const client = connect('proto', hub.addRoute(route('proto', tools)));
    try {
      await client.request(1, 'initialize', INIT);
      client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await client.request(2, 'tools/list');
      let id = 10;
      for (const tool of tools) {
        client.send({
          jsonrpc: '2.0',
          id: id++,
          method: 'tools/call',
          params: { name: tool, arguments: { text: tool } },
        });
      }
      await new Promise((r) => setTimeout(r, 1500));
      // control: `note` (same annotations, same mode) is held and queued
      expect(queue.pending().map((p) => p.tool)).toContain('note');
      // mode `prompt` asks always: nothing may reach the server before a person answers
      expect(await reached('proto')).toEqual([]);
    } finally {
      client.close();
    }
  }, 60_000);

  it("refuses a second call under a held id, and takes back the cancelled call's request", async () => {
    const client = connect('dup', hub.addRoute(route('dup', ['first', 'second'])));
    try {
      await client.request(1, 'initialize', INIT);
      client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await client.request(2, 'tools/list');
      const before = new Set(queue.pending().map((p) => p.id));
      client.send({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'first', arguments: {} },
      });
      await waitFor(
        () => queue.pending().some((p) => p.tool === 'first' && !before.has(p.id)),
        10_000,
      );
      // a second call under the id still held is refused at once, never queued
      client.send({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'second', arguments: {} },
      });
      await waitFor(() => client.received.some((m) => m.id === 7 && 'error' in m), 10_000);
      expect(queue.pending().some((p) => p.tool === 'second')).toBe(false);
      // Codex cancels request 7 — the call it had sent first
      client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
      await new Promise((r) => setTimeout(r, 500));
      const left = queue
        .pending()
        .filter((p) => !before.has(p.id))
        .map((p) => p.tool);
      // what is left waiting for a person is not a call Codex still waits on under one id
      expect(left).toEqual([]);
    } finally {
      client.close();
    }
  }, 60_000);

  it('refuses a call approved after its tool drifted, like a new call of it', async () => {
    const variant = join(root, 'variant.txt');
    const raw = {
      name: 'write',
      description: 'Echoes its arguments (write).',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      annotations: { readOnlyHint: false },
    };
    const pinned = (): Route => {
      const r = route(
        'drift',
        ['write'],
        [
          ECHO_SERVER,
          '--tools',
          'write!',
          '--call-log',
          join(root, 'drift.jsonl'),
          '--variant-file',
          variant,
        ],
      );
      return {
        ...r,
        gate: {
          allowed: new Set(['write']),
          pins: [{ name: 'write', digest: 'x', listed_digest: listedDigest(raw) }],
        },
      };
    };
    const a = connect('drift', hub.addRoute(pinned()));
    let b: RawRelayClient | undefined;
    try {
      await a.request(1, 'initialize', INIT);
      a.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const listed = (await a.request(2, 'tools/list')).result as { tools: unknown[] };
      expect(listed.tools).toHaveLength(1); // the pin matches
      a.send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'write', arguments: { text: 'held-before-drift' } },
      });
      await waitFor(() => queue.pending().some((p) => p.server === 'drift'), 10_000);
      const held = queue.pending().find((p) => p.server === 'drift');
      // the server's surface changes; a second connection of the route sees it: drift
      await writeFile(variant, 'write=now deletes everything');
      b = connect('drift', hub.addRoute(pinned()));
      await b.request(1, 'initialize', INIT);
      b.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(
        ((await b.request(2, 'tools/list')).result as { tools: unknown[] }).tools,
      ).toHaveLength(0);
      const fresh = await b.request(3, 'tools/call', {
        name: 'write',
        arguments: { text: 'after-drift' },
      });
      expect(JSON.stringify(fresh)).toContain('[tool-drift]');
      // the person approves the earlier request (its prompt showed the pinned tool)
      queue.answer(held?.id ?? '', 'approve', 'me', 'cli');
      await waitFor(() => a.received.some((m) => m.id === 3), 10_000);
      expect(JSON.stringify(a.received.find((m) => m.id === 3))).toContain('[tool-drift]');
      expect(await reached('drift')).toEqual([]);
    } finally {
      a.close();
      b?.close();
    }
  }, 60_000);

  it("times a call by the server's own tool timeout from when it goes on, the wait for a person not counted", async () => {
    const timed = (): Route => {
      const r = route(
        'timed',
        ['note', 'hang'],
        [
          ECHO_SERVER,
          '--tools',
          'note,hang',
          '--hang-on',
          'hang',
          '--call-log',
          join(root, 'timed.jsonl'),
        ],
      );
      return {
        ...r,
        approvals: { defaultMode: 'prompt', tools: { hang: 'approve' }, toolTimeoutSec: 1 },
      };
    };
    const client = connect('timed', hub.addRoute(timed()));
    try {
      await client.request(1, 'initialize', INIT);
      client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await client.request(2, 'tools/list');
      // held for longer than the tool's time, then approved: it runs and answers
      client.send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'note', arguments: { text: 'late' } },
      });
      await waitFor(() => queue.pending().some((p) => p.server === 'timed'), 10_000);
      await new Promise((r) => setTimeout(r, 1500));
      const held = queue.pending().find((p) => p.server === 'timed');
      queue.answer(held?.id ?? '', 'approve', 'me', 'cli');
      await waitFor(() => client.received.some((m) => m.id === 3), 10_000);
      expect(JSON.stringify(client.received.find((m) => m.id === 3))).toContain(
        'note: {\\"text\\":\\"late\\"}',
      );
      // a call the server never answers gets an error after the tool's own time
      const started = Date.now();
      const hung = await client.request(4, 'tools/call', { name: 'hang', arguments: {} });
      expect(JSON.stringify(hung.error)).toContain('tool_timeout_sec (1 s)');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      client.close();
    }
  }, 60_000);
});
