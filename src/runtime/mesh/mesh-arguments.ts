/**
 * The arguments of the five `mmo_mesh` tools (pure): each tool's parameters, the JSON Schema
 * `tools/list` gives for them, and the check a call's arguments pass before the back end sees
 * them. Strings must be non-empty, numbers greater than zero; unknown names are left out.
 */
import type { MESH_TOOL_NAMES } from '../protocol/mesh-protocol.js';

export type MeshToolName = (typeof MESH_TOOL_NAMES)[number];

interface MeshParam {
  readonly name: string;
  readonly type: 'string' | 'number';
  readonly required: boolean;
  readonly description: string;
}

const PARTICIPANT: MeshParam = {
  name: 'participant',
  type: 'string',
  required: true,
  description: 'Participant id from spawn_participant',
};

/** Each tool's parameters, in the order the schema lists them. */
export const MESH_TOOL_PARAMS: Readonly<Record<MeshToolName, readonly MeshParam[]>> = {
  spawn_participant: [
    {
      name: 'role',
      type: 'string',
      required: true,
      description: 'Role of the participant to start',
    },
    {
      name: 'task',
      type: 'string',
      required: true,
      description: 'The task the participant works on',
    },
    {
      name: 'cwd',
      type: 'string',
      required: false,
      description: 'Absolute working directory (default: the session working directory)',
    },
    {
      name: 'resume',
      type: 'string',
      required: false,
      description:
        'A participant of the session this one resumes (list_participants shows them as previous): the new participant continues its conversation',
    },
  ],
  send_message: [
    PARTICIPANT,
    { name: 'message', type: 'string', required: true, description: 'The message' },
  ],
  wait_participant: [
    PARTICIPANT,
    {
      name: 'timeout_sec',
      type: 'number',
      required: false,
      description: 'Longest time to wait, in seconds',
    },
  ],
  list_participants: [],
  stop_participant: [PARTICIPANT],
};

/** The JSON Schema of a tool's arguments, as `tools/list` gives it. */
export function meshInputSchema(tool: MeshToolName): Record<string, unknown> {
  const params = MESH_TOOL_PARAMS[tool];
  const properties: Record<string, unknown> = {};
  for (const param of params) {
    properties[param.name] =
      param.type === 'string'
        ? { type: 'string', minLength: 1, description: param.description }
        : { type: 'number', exclusiveMinimum: 0, description: param.description };
  }
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export type MeshArguments =
  | { readonly ok: true; readonly values: Readonly<Record<string, string | number>> }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Checks a call's `arguments` against the tool's parameters: every problem is named, with the
 * parameter it concerns; on success only the tool's own parameters are kept.
 */
export function checkMeshArguments(tool: MeshToolName, args: unknown): MeshArguments {
  if (args !== undefined && kindOf(args) !== 'object') {
    return { ok: false, problems: [`expected an object of arguments, received ${kindOf(args)}`] };
  }
  const given = (args ?? {}) as Record<string, unknown>;
  const values: Record<string, string | number> = {};
  const problems: string[] = [];
  for (const param of MESH_TOOL_PARAMS[tool]) {
    const value = Object.hasOwn(given, param.name) ? given[param.name] : undefined;
    if (value === undefined && !param.required) continue;
    if (typeof value !== param.type) {
      problems.push(`expected ${param.type}, received ${kindOf(value)} at ${param.name}`);
    } else if (typeof value === 'string' && value.length === 0) {
      problems.push(`expected a non-empty string at ${param.name}`);
    } else if (typeof value === 'number' && !(value > 0 && Number.isFinite(value))) {
      problems.push(`expected a number greater than 0 at ${param.name}`);
    } else {
      values[param.name] = value as string | number;
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}
