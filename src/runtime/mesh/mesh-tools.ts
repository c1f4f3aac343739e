/**
 * What the `mmo_mesh` tools say to a caller (pure): the caller's spawn and control lists, the
 * description of each of the five tools for those lists, and the whole `tools/list` entry. Shared
 * by the mesh server and the model wire, which gives a native role the descriptions of its lists.
 */
import { MESH_TOOL_NAMES } from '../protocol/mesh-protocol.js';
import { meshInputSchema, type MeshToolName } from './mesh-arguments.js';

export { MESH_SERVER_NAME, MESH_TOOL_NAMES } from '../protocol/mesh-protocol.js';

export interface MeshServerInfo {
  /** The caller's process root role. */
  readonly role: string;
  /** Roles the caller may spawn and control, for the tool descriptions. */
  readonly spawn: readonly string[];
  readonly control: readonly string[];
}

/** A list of role names as the tools say it (`none` when empty). */
export function roles(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.join(', ');
}

/**
 * The description of each mesh tool for a caller with these spawn and control lists (pure). The
 * model wire gives a native role the descriptions of its own lists.
 */
export function meshToolDescriptions(
  grants: Pick<MeshServerInfo, 'spawn' | 'control'>,
): Record<(typeof MESH_TOOL_NAMES)[number], string> {
  return {
    spawn_participant:
      `Start a participant: a separate Codex agent of the given role working on the task. ` +
      `Returns its participant id once it has started; use wait_participant for its result. ` +
      `A participant's tool calls that need approval wait for a person to approve them. ` +
      `Roles you may spawn: ${roles(grants.spawn)}.`,
    send_message:
      `Send a message to a participant. It starts a new turn, or waits for the current one ` +
      `to finish. Roles you may message: ${roles(grants.control)}.`,
    wait_participant:
      `Wait until a participant has finished its work (and any queued messages) and return its ` +
      `final message. Bounded by timeout_sec (default and maximum: the participant's lifecycle ` +
      `wait); on timeout the result says timed_out. Roles you may wait on: ${roles(grants.control)}.`,
    list_participants:
      'List the participants of this session you may control or have spawned, with their status; ' +
      "in a resumed session also the earlier session's participants (previous), which " +
      'spawn_participant with resume continues.',
    stop_participant:
      `Stop a participant and every participant it started. Roles you may stop: ` +
      `${roles(grants.control)}.`,
  };
}

const TITLES: Record<MeshToolName, string> = {
  spawn_participant: 'Spawn participant',
  send_message: 'Send message',
  wait_participant: 'Wait for participant',
  list_participants: 'List participants',
  stop_participant: 'Stop participant',
};

const CHANGES = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const READS = { readOnlyHint: true, openWorldHint: false };
const ANNOTATIONS: Record<MeshToolName, Record<string, boolean>> = {
  spawn_participant: CHANGES,
  send_message: CHANGES,
  wait_participant: READS,
  list_participants: READS,
  stop_participant: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
};

/** The instructions `initialize` gives a caller. */
export function meshInstructions(info: MeshServerInfo): string {
  return (
    `Agent mesh of this codex-mmo session. You act as role '${info.role}'. ` +
    `Roles you may spawn: ${roles(info.spawn)}. Roles you may message, wait on and stop: ` +
    `${roles(info.control)}. Each participant is a separate Codex process with its own tools.`
  );
}

/** The five tools as `tools/list` gives them to a caller. */
export function meshToolList(info: MeshServerInfo): Record<string, unknown>[] {
  const descriptions = meshToolDescriptions(info);
  return MESH_TOOL_NAMES.map((name) => ({
    name,
    title: TITLES[name],
    description: descriptions[name],
    inputSchema: meshInputSchema(name),
    annotations: ANNOTATIONS[name],
    execution: { taskSupport: 'forbidden' },
  }));
}
