/**
 * The `mmo_mesh` Agent MCP server: five tools (spawn_participant, send_message, wait_participant,
 * list_participants, stop_participant) served with the MCP SDK on top of a `MeshBackend`. A
 * refused or failed call becomes an `isError` tool result with a clear message, never a crash.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import { VERSION } from '../version.js';
import { MESH_SERVER_NAME, MeshError, type MeshBackend } from './mesh-protocol.js';

export { MESH_SERVER_NAME, MESH_TOOL_NAMES } from './mesh-protocol.js';

export interface MeshServerInfo {
  /** The caller's process root role. */
  readonly role: string;
  /** Roles the caller may spawn and control, for the tool descriptions. */
  readonly spawn: readonly string[];
  readonly control: readonly string[];
}

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

function roles(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.join(', ');
}

/** Builds the MCP server for one caller; connect it to a transport to serve. */
export function createMeshServer(backend: MeshBackend, info: MeshServerInfo): McpServer {
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
      description:
        `Start a participant: a separate Codex agent of the given role working on the task. ` +
        `Returns its participant id once it has started; use wait_participant for its result. ` +
        `A participant's tool calls that need approval wait for a person to approve them. ` +
        `Roles you may spawn: ${roles(info.spawn)}.`,
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
    async ({ role, task, cwd }) =>
      guarded(async () => {
        const result = await backend.spawn(
          cwd === undefined ? { role, task } : { role, task, cwd },
        );
        return ok(result, `Started participant ${result.participant} (role ${result.role}).`);
      }),
  );

  server.registerTool(
    'send_message',
    {
      title: 'Send message',
      description:
        `Send a message to a participant. It starts a new turn, or waits for the current one ` +
        `to finish. Roles you may message: ${roles(info.control)}.`,
      inputSchema: {
        participant: z.string().min(1).describe('Participant id from spawn_participant'),
        message: z.string().min(1).describe('The message'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ participant, message }) =>
      guarded(async () => ok(await backend.send(participant, message))),
  );

  server.registerTool(
    'wait_participant',
    {
      title: 'Wait for participant',
      description:
        `Wait until a participant has finished its work (and any queued messages) and return its ` +
        `final message. Bounded by timeout_sec (default and maximum: the participant's lifecycle ` +
        `wait); on timeout the result says timed_out. Roles you may wait on: ${roles(info.control)}.`,
      inputSchema: {
        participant: z.string().min(1).describe('Participant id from spawn_participant'),
        timeout_sec: z.number().positive().optional().describe('Longest time to wait, in seconds'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ participant, timeout_sec }) =>
      guarded(async () => {
        const result = await backend.wait(participant, timeout_sec);
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
      description:
        'List the participants of this session you may control or have spawned, with their status.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => guarded(async () => ok(await backend.list())),
  );

  server.registerTool(
    'stop_participant',
    {
      title: 'Stop participant',
      description:
        `Stop a participant and every participant it started. Roles you may stop: ` +
        `${roles(info.control)}.`,
      inputSchema: {
        participant: z.string().min(1).describe('Participant id from spawn_participant'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
    async ({ participant }) => guarded(async () => ok(await backend.stop(participant))),
  );

  return server;
}
