/**
 * The `mmo_mesh` Agent MCP server: five tools (spawn_participant, send_message, wait_participant,
 * list_participants, stop_participant) served with the MCP SDK on top of a `MeshBackend`. A
 * refused or failed call becomes an `isError` tool result with a clear message, never a crash.
 * Each call passes on the calling thread Codex names in its `_meta`, so the broker can check it
 * against that thread's role (a native role acts with its own spawn/control lists).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import { callerThread } from '../gateway/call-record.js';
import { VERSION } from '../../foundation/version.js';
import { meshToolDescriptions, roles, type MeshServerInfo } from './mesh-tools.js';
import {
  MESH_SERVER_NAME,
  MeshError,
  type MeshBackend,
  type MeshCallContext,
} from '../protocol/mesh-protocol.js';

function ok(value: unknown, lead?: string): CallToolResult {
  const json = JSON.stringify(value, null, 2);
  return { content: [{ type: 'text', text: lead === undefined ? json : `${lead}\n\n${json}` }] };
}

function failure(error: unknown): CallToolResult {
  const message =
    error instanceof MeshError
      ? `mmo_mesh ${error.code}: ${error.message}`
      : `mmo_mesh failed: ${error instanceof Error ? error.message : String(error)}`;
  return { content: [{ type: 'text', text: message }], isError: true };
}

async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    return failure(error);
  }
}

/** The calling thread of a mesh tool call, from its `_meta` (Codex names it there). */
function contextOf(extra: { _meta?: unknown }): MeshCallContext {
  const { thread } = callerThread(extra._meta);
  return thread === null ? {} : { thread };
}

/** Builds the MCP server for one caller; connect it to a transport to serve. */
export function createMeshServer(backend: MeshBackend, info: MeshServerInfo): McpServer {
  const descriptions = meshToolDescriptions(info);
  const server = new McpServer(
    { name: MESH_SERVER_NAME, version: VERSION },
    {
      instructions:
        `Agent mesh of this codex-mmo session. You act as role '${info.role}'. ` +
        `Roles you may spawn: ${roles(info.spawn)}. Roles you may message, wait on and stop: ` +
        `${roles(info.control)}. Each participant is a separate Codex process with its own tools.`,
    },
  );

  server.registerTool(
    'spawn_participant',
    {
      title: 'Spawn participant',
      description: descriptions.spawn_participant,
      inputSchema: {
        role: z.string().min(1).describe('Role of the participant to start'),
        task: z.string().min(1).describe('The task the participant works on'),
        cwd: z
          .string()
          .min(1)
          .optional()
          .describe('Absolute working directory (default: the session working directory)'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ role, task, cwd }, extra) =>
      guarded(async () => {
        const result = await backend.spawn(
          cwd === undefined ? { role, task } : { role, task, cwd },
          contextOf(extra),
        );
        return ok(result, `Started participant ${result.participant} (role ${result.role}).`);
      }),
  );

  server.registerTool(
    'send_message',
    {
      title: 'Send message',
      description: descriptions.send_message,
      inputSchema: {
        participant: z.string().min(1).describe('Participant id from spawn_participant'),
        message: z.string().min(1).describe('The message'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ participant, message }, extra) =>
      guarded(async () => ok(await backend.send(participant, message, contextOf(extra)))),
  );

  server.registerTool(
    'wait_participant',
    {
      title: 'Wait for participant',
      description: descriptions.wait_participant,
      inputSchema: {
        participant: z.string().min(1).describe('Participant id from spawn_participant'),
        timeout_sec: z.number().positive().optional().describe('Longest time to wait, in seconds'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ participant, timeout_sec }, extra) =>
      guarded(async () => {
        const result = await backend.wait(participant, timeout_sec, contextOf(extra));
        if (result.status === 'failed') {
          return failure(
            new MeshError(
              'failed',
              `participant ${result.participant} failed: ${result.error ?? 'no details'}`,
            ),
          );
        }
        const lead = result.timed_out
          ? `Participant ${result.participant} is still working (timed out).`
          : `Participant ${result.participant} finished. Final message:\n${result.final_message ?? ''}`;
        return ok(result, lead);
      }),
  );

  server.registerTool(
    'list_participants',
    {
      title: 'List participants',
      description: descriptions.list_participants,
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (_args, extra) => guarded(async () => ok(await backend.list(contextOf(extra)))),
  );

  server.registerTool(
    'stop_participant',
    {
      title: 'Stop participant',
      description: descriptions.stop_participant,
      inputSchema: {
        participant: z.string().min(1).describe('Participant id from spawn_participant'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    async ({ participant }, extra) =>
      guarded(async () => ok(await backend.stop(participant, contextOf(extra)))),
  );

  return server;
}
