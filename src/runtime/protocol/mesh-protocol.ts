/**
 * What the `mmo_mesh` tools do, as an interface (`MeshBackend`) with its argument and result
 * shapes, and the line protocol that carries those calls from a `mesh serve` process to the
 * session broker over the session's Unix socket (one JSON object per line).
 */

import type { PendingApproval } from './approval-types.js';
import { JsonLineDecoder, encodeJsonLine, type LineLimits } from '../../foundation/json-lines.js';
import { RESERVED_SERVER_ID } from '../../config/registry/types.js';

/** The mesh server's name: the one server ID the registry reserves. */
export const MESH_SERVER_NAME = RESERVED_SERVER_ID;

/** The tools of `mmo_mesh`, in the order the server registers them. */
export const MESH_TOOL_NAMES = [
  'spawn_participant',
  'send_message',
  'wait_participant',
  'list_participants',
  'stop_participant',
] as const;

export type ParticipantStatus = 'starting' | 'running' | 'idle' | 'failed' | 'stopped' | 'ended';

/** A participant as the mesh tools report it. */
export interface ParticipantInfo {
  readonly participant: string;
  readonly role: string;
  readonly status: ParticipantStatus;
  /** `root` or the participant id that spawned it. */
  readonly owner: string;
  readonly cwd: string;
  readonly started: string;
  /** When the participant stopped, failed or ended. */
  readonly ended?: string;
  readonly pid?: number;
  /** The last agent message of the last finished turn. */
  readonly final_message?: string;
  /** Why the participant or its last turn failed (credential values masked). */
  readonly error?: string;
  /** Messages waiting for the current turn to finish. */
  readonly queued_messages: number;
  /** MCP servers of the participant that failed to start (not required ones; errors masked). */
  readonly failed_servers?: readonly { readonly server: string; readonly error: string }[];
  /** The participant of an earlier session whose thread this one continues (`<session>/<id>`). */
  readonly resumed_from?: string;
}

/** A participant of the session this one resumes: `spawn_participant` with `resume` continues it. */
export interface PreviousParticipantInfo {
  readonly participant: string;
  readonly role: string;
  readonly owner: string;
  /** How it ended in that session. */
  readonly status: string;
  /** The session it ran in. */
  readonly session: string;
  /** The participant of this session that continues it, once one does. */
  readonly resumed_as?: string;
}

/** What `list_participants` returns: this session's participants, and a resumed one's earlier ones. */
export interface ParticipantList {
  readonly participants: ParticipantInfo[];
  readonly previous?: PreviousParticipantInfo[];
}

export interface SpawnArgs {
  readonly role: string;
  readonly task: string;
  readonly cwd?: string;
  /** A participant of the session this one resumes, whose thread the new participant continues. */
  readonly resume?: string;
}

export interface SendResult {
  readonly participant: string;
  readonly status: ParticipantStatus;
  /** `turn` when a new turn started with the message, `queued` when it waits for the current one. */
  readonly delivered: 'turn' | 'queued';
}

export interface WaitResult {
  readonly participant: string;
  readonly role: string;
  readonly status: ParticipantStatus;
  /** True when the bound passed before the participant finished its work. */
  readonly timed_out: boolean;
  readonly final_message?: string;
  readonly error?: string;
}

/** What a mesh call says about its caller beyond the process: the Codex thread that made it. */
export interface MeshCallContext {
  /** The calling thread (`_meta.threadId` of the tool call), when Codex named one. */
  readonly thread?: string;
}

/**
 * The operations behind the five `mmo_mesh` tools, for one caller. Refusals throw `MeshError`.
 * `context` names the calling thread, whose role the broker checks the call against.
 */
export interface MeshBackend {
  spawn(args: SpawnArgs, context?: MeshCallContext): Promise<ParticipantInfo>;
  send(participant: string, message: string, context?: MeshCallContext): Promise<SendResult>;
  wait(participant: string, timeoutSec?: number, context?: MeshCallContext): Promise<WaitResult>;
  list(context?: MeshCallContext): Promise<ParticipantList>;
  stop(participant: string, context?: MeshCallContext): Promise<ParticipantInfo>;
}

export type MeshErrorCode = 'refused' | 'not-found' | 'invalid' | 'failed' | 'unavailable';

/** A mesh call that did not succeed; its message is shown to the model as a tool error. */
export class MeshError extends Error {
  readonly code: MeshErrorCode;
  constructor(code: MeshErrorCode, message: string) {
    super(message);
    this.name = 'MeshError';
    this.code = code;
  }
}

/** Who is calling: the process root role and, for a participant's process, its id. */
export interface MeshCaller {
  readonly process: string;
  /** `root` for the session root process, otherwise the participant id. */
  readonly participant: string;
  /**
   * The role of the calling thread when the broker attributed it (a native role of the process);
   * grants are checked against it instead of the process root's.
   */
  readonly role?: string;
}

export type BrokerMethod =
  'hello' | 'spawn' | 'send' | 'wait' | 'list' | 'stop' | 'watch_approvals' | 'answer_approval';

export interface BrokerRequest {
  readonly id: number;
  readonly method: BrokerMethod;
  readonly params: Record<string, unknown>;
}

export type BrokerResponse =
  | { readonly id: number; readonly result: unknown }
  | {
      readonly id: number;
      readonly error: { readonly code: MeshErrorCode; readonly message: string };
    };

/**
 * A line the broker sends unasked (it has a `push`, no `id`): to the session root's mesh server
 * of an interactive `run` after `watch_approvals`, each participant approval request waiting for
 * a person and each answer it got (from any channel), so the person can be asked in the TUI.
 */
export type BrokerPush =
  | { readonly push: 'approval.requested'; readonly request: PendingApproval }
  | { readonly push: 'approval.answered'; readonly request: string };

/** Longest line (in bytes) a `LineDecoder` accepts unless told otherwise. */
export const MAX_LINE_LENGTH = 8 * 1024 * 1024;
/** Longest line the broker accepts from a client that has not yet authenticated with `hello`. */
export const MAX_HELLO_LINE_LENGTH = 64 * 1024;

/**
 * The mesh's JSON line decoder: bad lines are reported, not thrown, and a line longer than
 * `maxLineLength` bytes (`MAX_LINE_LENGTH` unless told otherwise) calls `onOverflow` and stops it.
 */
export class LineDecoder extends JsonLineDecoder {
  constructor(
    onValue: (value: unknown) => void,
    onBadLine?: (line: string) => void,
    limits: LineLimits = {},
  ) {
    super(onValue, onBadLine, {
      ...limits,
      maxLineLength: limits.maxLineLength ?? MAX_LINE_LENGTH,
    });
  }
}

/** One value as one line of the mesh protocol. */
export const encodeLine = encodeJsonLine;
