/**
 * Who is calling the session broker: a connection is identified by the mesh credential its
 * `hello` presents (never by the role or participant id it claims), must be the session root or a
 * participant of the session, and with the model wire acts with its calling thread's role.
 */
import type { ProfileData, ResolvedPlan } from '../../config/profile/types.js';
import type { ThreadAttribution } from '../gateway/relay-connection.js';
import { MeshError, type MeshCaller } from '../protocol/mesh-protocol.js';
import { roleOf } from './authorize.js';
import { MESH_TOKEN_ENV, type MeshCredentials, type MeshIdentity } from './mesh-credential.js';
import { stringArg } from './mesh-args.js';

/** The participant id (and owner) of the session root process. */
export const ROOT_OWNER = 'root';

/** The refusal for a connection without a valid credential. */
export const NO_CREDENTIAL_MESSAGE =
  `this connection did not present the session's credential (${MESH_TOKEN_ENV} of a Codex ` +
  'process of this session); mmo_mesh serves only the Codex processes the session started';

/** Who may call: the profile's roles, the session root's role and the participants so far. */
export interface KnownCallers {
  readonly profile: ProfileData;
  readonly root: string;
  /** The role of a participant of the session, undefined when there is no such participant. */
  participantRole(id: string): string | undefined;
}

function describeIdentity(identity: MeshIdentity): string {
  return identity.participant === ROOT_OWNER
    ? `the session root process (role '${identity.process}')`
    : `participant '${identity.participant}' (role '${identity.process}')`;
}

/** Refuses a caller that is not the session root or a participant of the role it names. */
export function checkCaller(known: KnownCallers, caller: MeshCaller): void {
  const profile = known.profile;
  if (roleOf(profile, caller.process) === undefined) {
    throw new MeshError(
      'refused',
      `role '${caller.process}' is not part of profile '${profile.name}'`,
    );
  }
  if (caller.participant === ROOT_OWNER) {
    if (caller.process !== known.root) {
      throw new MeshError(
        'refused',
        `the session root process runs role '${known.root}', not '${caller.process}'`,
      );
    }
    return;
  }
  if (known.participantRole(caller.participant) !== caller.process) {
    throw new MeshError(
      'refused',
      `'${caller.participant}' is not a participant of role '${caller.process}' in this session`,
    );
  }
}

/**
 * The caller a `hello` presents a credential for. A missing or unknown credential is refused;
 * so is a claimed role or participant id that is not the credential's own.
 */
export function identifyCaller(
  tokens: MeshCredentials,
  known: KnownCallers,
  params: Record<string, unknown>,
): MeshCaller {
  const token = params.token;
  const identity = typeof token === 'string' ? tokens.identify(token) : undefined;
  if (identity === undefined) throw new MeshError('refused', NO_CREDENTIAL_MESSAGE);
  const claimed = {
    process: stringArg(params, 'process', false) ?? identity.process,
    participant: stringArg(params, 'participant', false) ?? identity.participant,
  };
  if (claimed.process !== identity.process || claimed.participant !== identity.participant) {
    // a claim that names nobody of this session gets the same answer as before credentials
    checkCaller(known, claimed);
    throw new MeshError(
      'refused',
      `this connection's credential belongs to ${describeIdentity(identity)}, not to ${describeIdentity(claimed)}`,
    );
  }
  return { process: identity.process, participant: identity.participant };
}

/**
 * The caller acting with its calling thread's role: without the model wire, the process root;
 * with it, the role the wire attributed the call's thread to, which must be a role of the
 * calling process. Anything else is refused.
 */
export function actingCaller(
  plan: ResolvedPlan,
  roleOfThread: ((threadId: string) => ThreadAttribution | undefined) | undefined,
  caller: MeshCaller,
  params: Record<string, unknown>,
): MeshCaller {
  if (roleOfThread === undefined) return caller;
  const thread = typeof params.thread === 'string' && params.thread !== '' ? params.thread : '';
  const seen = thread === '' ? undefined : roleOfThread(thread);
  const process = plan.processes.find((p) => p.root === caller.process);
  const role = seen?.process === caller.participant ? seen.role : null;
  if (role === null || process?.roles.includes(role) !== true) {
    const why =
      thread === ''
        ? 'the call names no calling thread'
        : seen === undefined
          ? `its thread ${thread} is not known to the session's model wire`
          : seen.process !== caller.participant
            ? `its thread ${thread} belongs to another Codex process`
            : `its thread ${thread} could not be attributed to a role`;
    throw new MeshError(
      'refused',
      `mmo_mesh checks each call against the calling thread's role, and ${why}; the call is refused`,
    );
  }
  return { ...caller, role };
}
