/**
 * The participants of the session a resumed session continues (pure): what `list_participants`
 * shows of them to a caller (the roles it may see), and which one a `spawn_participant` with
 * `resume` continues — once, in its own role, with the thread its home kept.
 */
import { MeshError, type PreviousParticipantInfo } from '../protocol/mesh-protocol.js';

/** A participant of the earlier session, with the Codex thread its home kept. */
export interface PreviousParticipant {
  readonly participant: string;
  readonly role: string;
  readonly owner: string;
  readonly status: string;
  readonly home: string;
  readonly thread: string;
}

export interface PreviousSession {
  readonly session: string;
  readonly participants: readonly PreviousParticipant[];
}

/** The earlier participants a caller that sees `visible` roles is shown (undefined: none). */
export function previousFor(
  previous: PreviousSession | undefined,
  visible: ReadonlySet<string>,
  resumed: ReadonlyMap<string, string>,
): PreviousParticipantInfo[] | undefined {
  if (previous === undefined) return undefined;
  const shown = previous.participants
    .filter((p) => visible.has(p.role))
    .map((p): PreviousParticipantInfo => {
      const as = resumed.get(p.participant);
      return {
        participant: p.participant,
        role: p.role,
        owner: p.owner,
        status: p.status,
        session: previous.session,
        ...(as !== undefined && as !== '' ? { resumed_as: as } : {}),
      };
    });
  return shown.length > 0 ? shown : undefined;
}

/**
 * The earlier participant `id` a spawn of `role` continues, for a caller that sees the `visible`
 * roles (those it may control: the ones `list_participants` shows it). MeshError when there is
 * none by that id the caller may see, its role differs, or it is continued already.
 */
export function resumeTarget(
  previous: PreviousSession | undefined,
  id: string,
  role: string,
  resumed: ReadonlyMap<string, string>,
  visible: ReadonlySet<string>,
): PreviousParticipant {
  const found = previous?.participants.find((p) => p.participant === id && visible.has(p.role));
  if (previous === undefined || found === undefined) {
    throw new MeshError(
      'not-found',
      previous === undefined
        ? `this session resumes no earlier session; spawn_participant without resume starts a new participant`
        : `no participant '${id}' of session ${previous.session} kept a conversation to continue; list_participants shows the previous ones`,
    );
  }
  if (found.role !== role) {
    throw new MeshError(
      'invalid',
      `participant '${id}' of session ${previous.session} has role '${found.role}', not '${role}'; resume it with role '${found.role}'`,
    );
  }
  const as = resumed.get(id);
  if (as !== undefined) {
    throw new MeshError(
      'refused',
      as === ''
        ? `participant '${id}' is being resumed already`
        : `participant '${id}' of session ${previous.session} is continued already, by ${as}`,
    );
  }
  return found;
}
