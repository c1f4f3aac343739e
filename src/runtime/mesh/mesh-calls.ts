/**
 * What each `mmo_mesh` tool does with its checked arguments: the back-end operation, and the
 * tool result the model reads — a lead sentence and the JSON answer, or an `isError` result
 * naming the refusal or failure. A back end that throws never ends the server.
 */
import { MeshError, type MeshBackend, type MeshCallContext } from '../protocol/mesh-protocol.js';
import type { MeshToolName } from './mesh-arguments.js';

/** A `tools/call` result. */
export interface ToolResult {
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  readonly isError?: true;
}

function ok(value: unknown, lead?: string): ToolResult {
  const json = JSON.stringify(value, null, 2);
  return { content: [{ type: 'text', text: lead === undefined ? json : `${lead}\n\n${json}` }] };
}

function failure(error: unknown): ToolResult {
  const message =
    error instanceof MeshError
      ? `mmo_mesh ${error.code}: ${error.message}`
      : `mmo_mesh failed: ${error instanceof Error ? error.message : String(error)}`;
  return { content: [{ type: 'text', text: message }], isError: true };
}

async function perform(
  backend: MeshBackend,
  tool: MeshToolName,
  args: Readonly<Record<string, string | number>>,
  context: MeshCallContext,
): Promise<ToolResult> {
  const text = (name: string): string => String(args[name]);
  switch (tool) {
    case 'spawn_participant': {
      const spawn = {
        role: text('role'),
        task: text('task'),
        ...(args.cwd !== undefined ? { cwd: text('cwd') } : {}),
        ...(args.resume !== undefined ? { resume: text('resume') } : {}),
      };
      const result = await backend.spawn(spawn, context);
      const continued =
        result.resumed_from !== undefined ? `, continuing ${result.resumed_from}` : '';
      return ok(
        result,
        `Started participant ${result.participant} (role ${result.role}${continued}).`,
      );
    }
    case 'send_message':
      return ok(await backend.send(text('participant'), text('message'), context));
    case 'wait_participant': {
      const timeout = typeof args.timeout_sec === 'number' ? args.timeout_sec : undefined;
      const result = await backend.wait(text('participant'), timeout, context);
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
    }
    case 'list_participants':
      return ok(await backend.list(context));
    case 'stop_participant':
      return ok(await backend.stop(text('participant'), context));
  }
}

/** Runs one tool call; a refusal or failure of the back end becomes an `isError` result. */
export async function runMeshTool(
  backend: MeshBackend,
  tool: MeshToolName,
  args: Readonly<Record<string, string | number>>,
  context: MeshCallContext,
): Promise<ToolResult> {
  try {
    return await perform(backend, tool, args, context);
  } catch (error) {
    return failure(error);
  }
}
